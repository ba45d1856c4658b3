import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Book, NewBook } from '../shared/books/types';
import { BOOK_RANGE_SIZE, toBookItem } from '../shared/store/books/book-items';
import { DynamoBookStore } from '../shared/store/books/dynamodb-book-store';
import { createDocumentClient, PATIENT_CLIENT_LIMITS } from '../shared/store/dynamodb-client';
import { BOOKS_TABLE } from '../shared/store/tables';
import { CapacityModel, type Ceiling, ceilingOf, type LoadProfile, mixOf, profileOf } from './capacity-model';
import type { DynamoMeter } from './dynamodb-meter';
import { markdownTable } from './markdown';

/** Issue 39: an import of one author's 5,000 books at 1,000 creates/s or more without throttling the index. */
export const BULK_AUTHOR_IMPORT = 'POST /api/books, all by one author (bulk import)';
export const BULK_AUTHOR_IMPORT_INDEX_ONCE = `${BULK_AUTHOR_IMPORT}, a transaction's index copies charged once`;
export const AUTHOR_PAGES = "GET /api/books?author=…&limit=20&cursor=… (that author's pages)";
export const AUTHOR_YEAR_PAGES = "GET /api/books?author=…&year=…&limit=20&cursor=… (that author's pages of a year)";
const BULK_AUTHOR = 'Bulk Author';
const BULK_FIRST_YEAR = 2000;
const BULK_YEARS = 4;

/** The goals the data model is held to, per scenario (requests per second on one table). */
export const CAPACITY_GOALS: Record<string, number> = {
  'POST /api/books': 10_000,
  'PATCH /api/books/{id}': 10_000,
  'GET /api/books/{id}': 30_000,
  'POST /api/books, all of one publication year (bulk import)': 5_000,
  [BULK_AUTHOR_IMPORT]: 1_000,
};

interface CapacityRow {
  scenario: string;
  ceiling: Ceiling;
}

export interface CapacityResults {
  /** Which run produced the rows (`this run`, `test`); it also keeps each run's ISBNs apart. */
  source: string;
  requestsPerScenario: number;
  rows: CapacityRow[];
}

const stamp = '2026-01-01T00:00:00.000Z';

/**
 * What one function instance creates per second at most: one request at a time, and a create is a
 * TransactWriteItems round trip of at least about 4 ms (docs/data-model.md, the arithmetic).
 */
const INSTANCE_CREATES_PER_SECOND = 250;
/** The instances 10,000 creates/s need at that rate. */
const CONTAINERS = 10_000 / INSTANCE_CREATES_PER_SECOND;
/** Ids an instance takes before it reserves whole ranges (blocks of 2, 8 and 32). */
const WARM_UP_IDS = 42;

/**
 * Runs each route's DynamoDB traffic through the store (what the handlers send, nothing else) behind
 * the metering proxy, and turns what it saw into each scenario's ceiling: the request rate at which
 * the hottest partition key or item reaches DynamoDB's per-partition limit. How the layout was chosen
 * against the single-partition one: docs/decisions/sharded-book-keys.md.
 */
export const measureCapacity = async (
  meter: DynamoMeter,
  tableName: string,
  requests: number,
  source: string,
): Promise<CapacityResults> => {
  // Units, not time, are measured here: a retried write would be metered twice.
  const client = createDocumentClient(meter.endpoint, PATIENT_CLIENT_LIMITS);
  // Creates come from CONTAINERS function instances, each past its first blocks (2, 8 and 32 ids),
  // so each writes a range of its own, as busy instances do: a Lambda instance serves one request at
  // a time, so 10,000 creates/s take at least 10,000 / INSTANCE_CREATES_PER_SECOND of them.
  const model = new CapacityModel(BOOKS_TABLE);
  let seq = 0;
  const newBook = (extra: Partial<NewBook> = {}): NewBook => {
    seq++;
    return {
      title: `Capacity ${seq}`,
      author: `Author ${seq % 50}`,
      isbn: `cap-${source}-${seq}`,
      publicationYear: 1900 + (seq % 120),
      createdAt: stamp,
      updatedAt: stamp,
      ...extra,
    };
  };
  const metered = async (count: number, run: (i: number) => Promise<unknown>) => {
    meter.take();
    for (let i = 0; i < count; i++) await run(i);
    return meter.take();
  };
  const profile = async (count: number, run: (i: number) => Promise<unknown>): Promise<LoadProfile> =>
    profileOf(model, await metered(count, run), count);

  // Each is at its own point of its range (as instances are at any moment), past its first create
  // (so past its schema check, once per instance), and the other ids the warm-up took are books
  // written directly, unmetered, so the catalogue a page reads is dense.
  const containers = Array.from({ length: CONTAINERS }, () => new DynamoBookStore(client, tableName));
  const warmedIds: number[] = [];
  for (const [c, container] of containers.entries()) {
    await container.create(newBook());
    const ids = (container as unknown as { ids: { allocate(): Promise<number> } }).ids;
    const warmUp = WARM_UP_IDS + Math.floor((c * BOOK_RANGE_SIZE) / CONTAINERS);
    for (let i = 0; i < warmUp; i++) warmedIds.push(await ids.allocate());
  }
  for (let start = 0; start < warmedIds.length; start += 25) {
    const items = warmedIds.slice(start, start + 25).map((id) => ({
      PutRequest: { Item: toBookItem({ ...newBook(), id }, 1) },
    }));
    await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: items } }));
  }
  meter.take();
  const store = containers[0] as DynamoBookStore;
  const containerFor = (i: number) => containers[i % CONTAINERS] as DynamoBookStore;

  const created: Book[] = [];
  const create = await profile(requests, async (i) => created.push((await containerFor(i).create(newBook())).book));
  const pick = (i: number) => created[(i * 7919) % created.length] as Book;
  const get = await profile(requests, (i) => store.get(pick(i).id));
  const patch = await profile(requests, (i) =>
    store.update(pick(i).id, { title: `Patched ${i}`, updatedAt: new Date().toISOString() }),
  );
  const replace = await profile(requests, (i) =>
    store.update(pick(i).id, {
      ...pick(i),
      title: `Replaced ${i}`,
      publicationYear: 1900 + (i % 120),
      updatedAt: new Date().toISOString(),
    }),
  );
  const list = await profile(Math.max(8, requests / 8), async () => {
    let n = 0;
    for await (const _ of store.iterate({}, { limit: 20 })) if (++n >= 20) break;
  });
  // Readers paging through the catalogue are at any page: each starts after a book picked across it.
  const pageAnywhere = await profile(Math.max(8, requests / 8), async (i) => {
    let n = 0;
    for await (const _ of store.iterate({}, { limit: 20, after: pick(i).id })) if (++n >= 20) break;
  });
  const filtered = await profile(Math.max(8, requests / 8), async (i) => {
    for await (const _ of store.iterate({ author: `Author ${i % 50}`, year: 1900 + (i % 120) }, { limit: 20 })) {
      // drained: the handler streams every match of the page
    }
  });
  const oneYear = await profile(requests, async (i) =>
    created.push((await containerFor(i).create(newBook({ publicationYear: 1999 }))).book),
  );
  // One author's import through every instance, each taking an even number of books: its ids are
  // consecutive in its own range, so they fall evenly on the author's two keys (id mod 2), as over a
  // long import; an odd number would tilt a short sample by up to one book per instance.
  const bulkRequests = bulkAuthorRequests(requests);
  const authorBooks: Book[] = [];
  const oneAuthorCalls = await metered(bulkRequests, async (i) =>
    authorBooks.push(
      (
        await containerFor(i).create(
          newBook({ author: BULK_AUTHOR, publicationYear: BULK_FIRST_YEAR + (i % BULK_YEARS) }),
        )
      ).book,
    ),
  );
  const oneAuthor = profileOf(model, oneAuthorCalls, bulkRequests);
  const oneAuthorIndexOnce = profileOf(
    new CapacityModel(BOOKS_TABLE, { transactionalIndexFactor: 1 }),
    oneAuthorCalls,
    bulkRequests,
  );
  // Readers of that author's pages, by author and by author and year, each at a page across them;
  // a page asks for one book more than it shows, as the service does (BookService.page).
  const pickAuthorBook = (i: number) => authorBooks[(i * 7919) % authorBooks.length] as Book;
  const authorPages = await profile(Math.max(8, requests / 8), async (i) => {
    for await (const _ of store.iterate({ author: BULK_AUTHOR }, { limit: 21, after: pickAuthorBook(i).id })) {
      // drained: the page and the one book more
    }
  });
  const authorYearPages = await profile(Math.max(8, requests / 8), async (i) => {
    const { id, publicationYear } = pickAuthorBook(i);
    const filter = { author: BULK_AUTHOR, year: publicationYear };
    for await (const _ of store.iterate(filter, { limit: 21, after: id })) {
      // drained
    }
  });
  const deleted = await profile(requests, async (i) => {
    await store.delete((created[i] as Book).id);
  });

  // The load tool's cycle: create, read, patch, filtered list, replace, and a delete every other cycle.
  const loadMix = mixOf([
    [create, 1],
    [get, 1],
    [patch, 1],
    [filtered, 1],
    [replace, 1],
    [deleted, 0.5],
  ]);
  const rows: CapacityRow[] = [
    ['POST /api/books', create],
    ['GET /api/books/{id}', get],
    ['PATCH /api/books/{id}', patch],
    ['PUT /api/books/{id} (year changed)', replace],
    ['DELETE /api/books/{id}', deleted],
    ['GET /api/books?limit=20 (the first page)', list],
    ['GET /api/books?limit=20&cursor=… (pages across the catalogue)', pageAnywhere],
    ['GET /api/books?author=…&year=…&limit=20', filtered],
    ['POST /api/books, all of one publication year (bulk import)', oneYear],
    [BULK_AUTHOR_IMPORT, oneAuthor],
    [BULK_AUTHOR_IMPORT_INDEX_ONCE, oneAuthorIndexOnce],
    [AUTHOR_PAGES, authorPages],
    [AUTHOR_YEAR_PAGES, authorYearPages],
    ["the load tool's mix", loadMix],
  ].map(([scenario, load]) => ({ scenario: scenario as string, ceiling: ceilingOf(load as LoadProfile) }));
  return { source, requestsPerScenario: requests, rows };
};

/** The one-author import's creates: `requests` rounded up to an even number per instance. */
const bulkAuthorRequests = (requests: number) => 2 * CONTAINERS * Math.ceil(requests / (2 * CONTAINERS));

const fixed = (value: number) => (Number.isFinite(value) ? Math.floor(value).toLocaleString('en-US') : 'unbounded');

/** Each scenario's ceiling, with the goals; Markdown for docs/benchmarks.md. */
export const renderCapacity = (current: CapacityResults): string => {
  const rows = current.rows.map(({ scenario, ceiling }) => {
    const goal = CAPACITY_GOALS[scenario];
    const met =
      goal === undefined
        ? ''
        : `${goal.toLocaleString('en-US')} ${ceiling.requestsPerSecond >= goal && ceiling.maxWriteShare <= 1 / 8 ? '✓' : '✗'}`;
    return [
      scenario,
      fixed(ceiling.requestsPerSecond),
      `${(ceiling.maxWriteShare * 100).toFixed(1)} %`,
      ceiling.limitedBy,
      ceiling.callsPerRequest.toFixed(2),
      met,
    ];
  });
  const table = markdownTable(
    ['Scenario', 'req/s', 'hottest key share', 'Limited by', 'DynamoDB calls per request', 'Goal'],
    rows,
    ['left', 'right', 'right', 'left', 'right', 'right'],
  );
  return [
    `Ceilings from ${current.requestsPerScenario} metered requests per scenario (the one-author import ${bulkAuthorRequests(current.requestsPerScenario)}, an even number per instance, so its ids fall evenly on the author's two keys): the request rate at which the hottest partition key reaches 1,000 WCU/s or 3,000 RCU/s, or one item 1,000 WCU/s (DynamoDB's per-partition limits; it never splits an item). Hottest key share: that key's part of all write units (table and index keys).`,
    '',
    table,
  ].join('\n');
};
