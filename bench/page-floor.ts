import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalDatabase } from '../local/dynoxide';
import { ensureTables } from '../local/tables';
import { BookService } from '../shared/books/book-service';
import { DEFAULT_LIST_MAX_BOOKS } from '../shared/books/limits';
import type { Book, BookFilter, BookInput } from '../shared/books/types';
import { ListTooLargeError } from '../shared/http/errors';
import { streamedJsonArray } from '../shared/http/streamed-json-array';
import { completeAuthorKeys } from '../shared/store/books/author-keys';
import { authorShardKey, ID_BLOCKS_KEY, OLDER_AUTHOR_SHARDS, toBookItem } from '../shared/store/books/book-items';
import { countBooks } from '../shared/store/books/book-reads';
import type { BookStoreContext } from '../shared/store/books/book-store-context';
import { BookTransactions } from '../shared/store/books/book-transactions';
import { DynamoBookStore } from '../shared/store/books/dynamodb-book-store';
import { IdBlockAllocator } from '../shared/store/books/id-blocks';
import { LayoutState } from '../shared/store/books/layout-state';
import { NO_OLDER_LAYOUT } from '../shared/store/books/older-layout';
import { createDocumentClient, createDynamoClient, PATIENT_CLIENT_LIMITS } from '../shared/store/dynamodb-client';
import { type DynamoMeter, startDynamoMeter } from './dynamodb-meter';
import { markdownTable } from './markdown';
import { seedBooks } from './seed';

/**
 * Issue 39's measures, each beside the way the store worked before it, metered in one run through
 * the proxy in front of DynamoDB Local:
 * - ids: the id gap that 150 failed creates (duplicate ISBN) and 20 Idempotency-Key replays leave
 *   between two creates (before: the allocator and transaction without giving ids back);
 * - pages: every unfiltered page of 20 over a catalogue, median, most and the last page's calls,
 *   from a container that has listed before (before: a table without range end marks, which the
 *   store walks as it did, reading the id-blocks item to find the end);
 * - the list cap: what one refused unpaged list (422) costs over the cap (before: the head of the
 *   list, the high mark and a count of every range; now: the remembered count);
 * - filtered pages: every page of 20 filtered by an author with a few hundred books, by that author
 *   and one year, and by that year alone (measureFilteredPages).
 */
const PAGE = 20;
const FAILED = 150;
const REPLAYS = 20;

export interface FloorRow {
  measure: string;
  before: number;
  after: number;
}

const input = (isbn: string): BookInput => ({ title: 'Floor', author: 'Floor Author', isbn, publicationYear: 2001 });

const book = (id: number): Book => ({
  id,
  title: `Page floor ${id}`,
  author: `Author ${id % 50}`,
  isbn: `floor-${id}`,
  publicationYear: 1900 + (id % 120),
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

const newTable = async (endpoint: string, name: string) => {
  await ensureTables(createDynamoClient(endpoint), { books: name, auth: `${name}-auth` });
  return name;
};

/** A table as one from before end marks: the counter does not say they are complete. */
const withoutEndMarks = (endpoint: string, table: string) =>
  createDocumentClient(endpoint, PATIENT_CLIENT_LIMITS).send(
    new UpdateCommand({ TableName: table, Key: ID_BLOCKS_KEY, UpdateExpression: 'REMOVE rangeMarks' }),
  );

/** The ids of the creates on either side of the failed ones and the replays. */
const idGap = async (create: (book: BookInput, key?: string) => Promise<number>) => {
  await create(input('gap-0'));
  const first = await create(input('gap-1'), 'gap-key');
  for (let i = 0; i < FAILED; i++) await create(input('gap-0')).catch(() => undefined);
  for (let i = 0; i < REPLAYS; i++) await create(input('gap-1'), 'gap-key');
  return (await create(input('gap-2'))) - first;
};

const oldCreate = (endpoint: string, table: string) => {
  const client = createDocumentClient(endpoint, PATIENT_CLIENT_LIMITS);
  const layout = new LayoutState();
  const ids = new IdBlockAllocator(client, table, layout);
  const olderLayout = NO_OLDER_LAYOUT.open({ client, tableName: table, layout });
  const transactions = new BookTransactions({ client, tableName: table, nowSeconds: () => 0, layout, olderLayout });
  return async (fields: BookInput, key?: string) => {
    const now = '2026-01-01T00:00:00.000Z';
    const created = await transactions.create(
      await ids.allocate(),
      { ...fields, createdAt: now, updatedAt: now },
      key === undefined ? undefined : { owner: 'bench', key, fingerprint: fields.isbn },
    );
    return created.book.id;
  };
};

/** Calls of every page of 20, following the next links, from a container that listed once before. */
const pageCalls = async (meter: DynamoMeter, service: BookService) => {
  await service.page({}, { limit: 1 });
  const calls: number[] = [];
  let after: number | undefined;
  do {
    meter.take();
    const page = await service.page({}, { limit: PAGE, ...(after !== undefined && { after }) });
    calls.push(meter.take().length);
    after = page.nextAfter;
  } while (after !== undefined);
  const sorted = [...calls].sort((a, b) => a - b);
  return {
    median: sorted[Math.floor((sorted.length - 1) / 2)] as number,
    most: sorted.at(-1) as number,
    last: calls.at(-1) as number,
  };
};

/** The filtered catalogue's author with a few hundred books (every PROLIFIC_EVERY-th id), over PROLIFIC_YEARS years. */
const PROLIFIC_AUTHOR = 'Prolific Author';
const PROLIFIC_EVERY = 5;
const PROLIFIC_FIRST_YEAR = 2000;
const PROLIFIC_YEARS = 4;
/** The year the author-and-year and the year-only filters ask for: the author's and about one in 120 others'. */
const FILTER_YEAR = PROLIFIC_FIRST_YEAR + 1;

const filteredBook = (id: number): Book =>
  id % PROLIFIC_EVERY === 0
    ? {
        ...book(id),
        author: PROLIFIC_AUTHOR,
        publicationYear: PROLIFIC_FIRST_YEAR + (Math.floor(id / PROLIFIC_EVERY) % PROLIFIC_YEARS),
      }
    : book(id);

/** A book as the version before the author-and-year index wrote it: author keys over 16 shards, no yearId. */
const olderAuthorKeys = (book: Book): Record<string, unknown> => {
  const { yearId: _notYetWritten, ...item } = toBookItem(book, 1);
  return { ...item, authorShard: authorShardKey(item.authorKey, book.id % OLDER_AUTHOR_SHARDS) };
};

/** A table as one from before the author-and-year index: the id-blocks item lacks the mark. */
const withoutAuthorIndexMark = (endpoint: string, table: string) =>
  createDocumentClient(endpoint, PATIENT_CLIENT_LIMITS).send(
    new UpdateCommand({ TableName: table, Key: ID_BLOCKS_KEY, UpdateExpression: 'REMOVE authorIndex' }),
  );

export interface FilteredPages {
  /** Calls of the first page on a container that has read nothing (it reads the id-blocks item for the mark). */
  first: number;
  /** Calls of every page of 20, following the next links, on that container afterwards (warm). */
  calls: number[];
  /** The matches, in the order the pages gave them. */
  ids: number[];
}

const filteredPages = async (meter: DynamoMeter, service: BookService, filter: BookFilter): Promise<FilteredPages> => {
  meter.take();
  await service.page(filter, { limit: PAGE });
  const first = meter.take().length;
  const calls: number[] = [];
  const ids: number[] = [];
  let after: number | undefined;
  do {
    meter.take();
    const page = await service.page(filter, { limit: PAGE, ...(after !== undefined && { after }) });
    calls.push(meter.take().length);
    ids.push(...page.books.map((each) => each.id));
    after = page.nextAfter;
  } while (after !== undefined);
  return { first, calls, ids };
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] as number;
const most = (values: number[]) => Math.max(...values);

export interface FilteredMeasure {
  filter: string;
  matches: number;
  before: FilteredPages;
  after: FilteredPages;
}

/**
 * Every page of 20 of three filters over one catalogue of `books` books, before and after its
 * author keys are moved: before, the books carry the older author keys (16 per author, no author-and-year key)
 * and the id-blocks item no mark, as a table from the version before; after, the same table once
 * `completeAuthorKeys` (npm run data:migrate-layout's step) has run. Each filter is read by a new
 * container (a store that has read nothing), whose first page is counted apart; the pages that
 * follow are those of a warm container. Both must give the same books.
 */
export const measureFilteredPages = async (
  endpoint: string,
  meter: DynamoMeter,
  books: number,
  tableName = 'floor-filters',
): Promise<FilteredMeasure[]> => {
  const metered = () => createDocumentClient(meter.endpoint, PATIENT_CLIENT_LIMITS);
  const table = await newTable(endpoint, tableName);
  const direct = createDocumentClient(endpoint, PATIENT_CLIENT_LIMITS);
  await seedBooks(direct, table, 1, books, filteredBook, { item: olderAuthorKeys });
  await withoutAuthorIndexMark(endpoint, table);
  const filters: [string, BookFilter][] = [
    ['by author', { author: PROLIFIC_AUTHOR }],
    ['by author and year', { author: PROLIFIC_AUTHOR, year: FILTER_YEAR }],
    ['by year alone', { year: FILTER_YEAR }],
  ];
  const walk = async () => {
    const walks: FilteredPages[] = [];
    for (const [, filter] of filters) {
      walks.push(await filteredPages(meter, new BookService(new DynamoBookStore(metered(), table)), filter));
    }
    return walks;
  };
  const before = await walk();
  const { rewritten } = await completeAuthorKeys(direct, table);
  if (rewritten !== books) throw new Error(`completeAuthorKeys rewrote ${rewritten} of ${books} books`);
  const after = await walk();
  return filters.map(([name], i) => {
    const was = before[i] as FilteredPages;
    const now = after[i] as FilteredPages;
    if (JSON.stringify(was.ids) !== JSON.stringify(now.ids)) {
      throw new Error(`The pages ${name} gave other books after the author keys moved`);
    }
    return { filter: name, matches: now.ids.length, before: was, after: now };
  });
};

export const filteredRows = (measures: FilteredMeasure[]): FloorRow[] =>
  measures.flatMap(({ filter, matches, before, after }) => {
    const label = `calls per page of ${PAGE} ${filter} (${matches} books, ${after.calls.length} pages)`;
    return [
      { measure: `${label}, median`, before: median(before.calls), after: median(after.calls) },
      { measure: `${label}, most`, before: most(before.calls), after: most(after.calls) },
      {
        measure: `calls of a new container's first page ${filter}`,
        before: before.first,
        after: after.first,
      },
    ];
  });

/** One unpaged list over the cap, as the list function decides it: the calls until ListTooLargeError. */
const refusedListCalls = async (meter: DynamoMeter, service: BookService, cap: number, remembered: boolean) => {
  meter.take();
  try {
    await streamedJsonArray(service.list({}), {
      route: 'ListBooks',
      cap: {
        maxItems: cap,
        holdsMore: () => service.holdsMoreThan({}, cap),
        ...(remembered && { knownToHoldMore: () => service.knownToHoldMoreThan({}, cap) }),
      },
      remainingMs: () => 60_000,
    });
    throw new Error('The list over the cap was not refused');
  } catch (error) {
    if (!(error instanceof ListTooLargeError)) throw error;
  }
  return meter.take().length;
};

export const measurePageFloor = async (
  endpoint: string,
  meter: DynamoMeter,
  { pageBooks, capBooks, cap }: { pageBooks: number; capBooks: number; cap: number },
): Promise<FloorRow[]> => {
  const rows: FloorRow[] = [];
  const metered = () => createDocumentClient(meter.endpoint, PATIENT_CLIENT_LIMITS);

  const gapBefore = await idGap(oldCreate(endpoint, await newTable(endpoint, 'floor-ids-before')));
  const nowStore = new BookService(new DynamoBookStore(metered(), await newTable(endpoint, 'floor-ids-after')));
  const gapAfter = await idGap(
    async (fields, key) =>
      (await nowStore.create(fields, key === undefined ? undefined : { owner: 'bench', key })).book.id,
  );
  rows.push({
    measure: `id gap across ${FAILED} failed creates and ${REPLAYS} replays`,
    before: gapBefore,
    after: gapAfter,
  });

  const pagesBefore = await newTable(endpoint, 'floor-pages-before');
  const pagesAfter = await newTable(endpoint, 'floor-pages-after');
  for (const table of [pagesBefore, pagesAfter]) {
    await seedBooks(createDocumentClient(endpoint, PATIENT_CLIENT_LIMITS), table, 1, pageBooks, book);
  }
  await withoutEndMarks(endpoint, pagesBefore);
  const before = await pageCalls(meter, new BookService(new DynamoBookStore(metered(), pagesBefore)));
  const after = await pageCalls(meter, new BookService(new DynamoBookStore(metered(), pagesAfter)));
  rows.push(
    { measure: `calls per page of ${PAGE}, median`, before: before.median, after: after.median },
    { measure: `calls per page of ${PAGE}, most`, before: before.most, after: after.most },
    { measure: 'calls of the last page', before: before.last, after: after.last },
  );

  const capTable = await newTable(endpoint, 'floor-cap');
  await seedBooks(createDocumentClient(endpoint, PATIENT_CLIENT_LIMITS), capTable, 1, capBooks, book);
  // Before: the store's count on every refused list (no remembered verdict).
  const counting = new DynamoBookStore(metered(), capTable);
  const context: BookStoreContext = {
    client: metered(),
    tableName: capTable,
    nowSeconds: () => 0,
    layout: new LayoutState(),
    // A new table never held the older layout.
    olderLayout: NO_OLDER_LAYOUT.open({ client: metered(), tableName: capTable, layout: new LayoutState() }),
  };
  counting.countUpTo = (filter, upTo) => countBooks(context, filter, upTo);
  const refusedBefore = await refusedListCalls(meter, new BookService(counting), cap, false);
  const remembering = new BookService(new DynamoBookStore(metered(), capTable));
  await remembering.holdsMoreThan({}, cap); // the count that is then remembered
  const refusedAfter = await refusedListCalls(meter, remembering, cap, true);
  rows.push({
    measure: `calls of one refused unpaged list, ${capBooks.toLocaleString('en-US')} books, cap ${cap.toLocaleString('en-US')}`,
    before: refusedBefore,
    after: refusedAfter,
  });

  rows.push(...filteredRows(await measureFilteredPages(endpoint, meter, pageBooks)));
  return rows;
};

export const renderPageFloor = (rows: FloorRow[], pageBooks: number): string =>
  [
    `Issue 39's measures, before and after, metered in one run (pages over ${pageBooks.toLocaleString('en-US')} books seeded in id order; ` +
      `filtered pages over another ${pageBooks.toLocaleString('en-US')}, one author's every ${PROLIFIC_EVERY}th over ${PROLIFIC_YEARS} years, ` +
      `before with the older author keys, after npm run data:migrate-layout's completeAuthorKeys on the same table):`,
    '',
    markdownTable(
      ['Measure', 'before', 'after', 'after / before'],
      rows.map((row) => [
        row.measure,
        String(row.before),
        String(row.after),
        row.before === 0 ? '–' : `${(row.after / row.before).toFixed(3)}×`,
      ]),
      ['left', 'right', 'right', 'right'],
    ),
  ].join('\n');

/** `tsx bench/page-floor.ts [books]`: these measurements alone, on their own Dynoxide (the cap at 40,000 books, the default cap). */
if (process.argv[1]?.endsWith('page-floor.ts')) {
  const pageBooks = Number(process.argv[2] ?? 2_000);
  const database = await startLocalDatabase();
  const meter = await startDynamoMeter(database.endpoint);
  try {
    const rows = await measurePageFloor(database.endpoint, meter, {
      pageBooks,
      capBooks: 40_000,
      cap: DEFAULT_LIST_MAX_BOOKS,
    });
    console.log(renderPageFloor(rows, pageBooks));
  } finally {
    await meter.close();
    await database.stop();
  }
}
