import type { Book, NewBook } from '../shared/books/types';
import { DynamoBookStore } from '../shared/store/dynamodb-book-store';
import { createDocumentClient, PATIENT_CLIENT_LIMITS } from '../shared/store/dynamodb-client';
import { BOOKS_TABLE } from '../shared/store/tables';
import { CapacityModel, type Ceiling, ceilingOf, type LoadProfile, mixOf, profileOf } from './capacity-model';
import type { DynamoMeter } from './dynamodb-meter';
import { markdownTable } from './markdown';

/** The goals the data model is held to, per scenario (requests per second on one table). */
export const CAPACITY_GOALS: Record<string, number> = {
  'POST /api/books': 10_000,
  'PATCH /api/books/{id}': 10_000,
  'GET /api/books/{id}': 30_000,
  'POST /api/books, all of one publication year (bulk import)': 5_000,
};

export interface CapacityRow {
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
  const store = new DynamoBookStore(createDocumentClient(meter.endpoint, PATIENT_CLIENT_LIMITS), tableName);
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
  const profile = async (count: number, run: (i: number) => Promise<unknown>): Promise<LoadProfile> => {
    meter.take();
    for (let i = 0; i < count; i++) await run(i);
    return profileOf(model, meter.take(), count);
  };

  const created: Book[] = [];
  const create = await profile(requests, async () => created.push((await store.create(newBook())).book));
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
  const filtered = await profile(Math.max(8, requests / 8), async (i) => {
    for await (const _ of store.iterate({ author: `Author ${i % 50}`, year: 1900 + (i % 120) }, { limit: 20 })) {
      // drained: the handler streams every match of the page
    }
  });
  const oneYear = await profile(requests, async () =>
    created.push((await store.create(newBook({ publicationYear: 1999 }))).book),
  );
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
    ['GET /api/books?limit=20', list],
    ['GET /api/books?author=…&year=…&limit=20', filtered],
    ['POST /api/books, all of one publication year (bulk import)', oneYear],
    ["the load tool's mix", loadMix],
  ].map(([scenario, load]) => ({ scenario: scenario as string, ceiling: ceilingOf(load as LoadProfile) }));
  return { source, requestsPerScenario: requests, rows };
};

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
    `Ceilings from ${current.requestsPerScenario} metered requests per scenario: the request rate at which the hottest partition key reaches 1,000 WCU/s or 3,000 RCU/s, or one item 1,000 WCU/s (DynamoDB's per-partition limits; it never splits an item). Hottest key share: that key's part of all write units (table and index keys).`,
    '',
    table,
  ].join('\n');
};
