import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '../local/tables';
import { BookService } from '../shared/books/book-service';
import type { Book, BookInput } from '../shared/books/types';
import { ListTooLargeError } from '../shared/http/errors';
import { streamedJsonArray } from '../shared/http/streamed-json-array';
import { ID_BLOCKS_KEY } from '../shared/store/books/book-items';
import { countBooks } from '../shared/store/books/book-reads';
import type { BookStoreContext } from '../shared/store/books/book-store-context';
import { BookTransactions } from '../shared/store/books/book-transactions';
import { DynamoBookStore } from '../shared/store/books/dynamodb-book-store';
import { IdBlockAllocator } from '../shared/store/books/id-blocks';
import { LayoutState } from '../shared/store/books/layout-state';
import { NO_OLDER_LAYOUT } from '../shared/store/books/older-layout';
import { createDocumentClient, createDynamoClient, PATIENT_CLIENT_LIMITS } from '../shared/store/dynamodb-client';
import type { DynamoMeter } from './dynamodb-meter';
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
 *   list, the high mark and a count of every range; now: the remembered count).
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
  return rows;
};

export const renderPageFloor = (rows: FloorRow[], pageBooks: number): string =>
  [
    `Issue 39's measures, before and after, metered in one run (pages over ${pageBooks.toLocaleString('en-US')} books seeded in id order):`,
    '',
    markdownTable(
      ['Measure', 'before', 'after'],
      rows.map((row) => [row.measure, String(row.before), String(row.after)]),
      ['left', 'right', 'right'],
    ),
  ].join('\n');
