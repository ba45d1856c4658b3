import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalDatabase } from '../local/dynoxide';
import { ensureTables } from '../local/tables';
import type { Book } from '../shared/books/types';
import { streamPageItems, toBookItem } from '../shared/store/books/book-items';
import type { BookStoreContext } from '../shared/store/books/book-store-context';
import { DynamoBookStore } from '../shared/store/books/dynamodb-book-store';
import { IdBlocksView } from '../shared/store/books/id-blocks-view';
import { type KeyQuery, queryPages } from '../shared/store/books/key-queries';
import { mergeAscending } from '../shared/store/books/sorted-merge';
import { createDocumentClient, createDynamoClient, PATIENT_CLIENT_LIMITS } from '../shared/store/dynamodb-client';
import { type DynamoMeter, startDynamoMeter } from './dynamodb-meter';
import { markdownTable } from './markdown';
import { seedBooks } from './seed';

const PAGE = 20;

export interface PageCost {
  layout: string;
  pages: number;
  medianCalls: number;
  mostCalls: number;
  readUnitsPerPage: number;
  wholeListCalls: number;
  wholeListReadUnits: number;
}

const book = (id: number): Book => ({
  id,
  title: `Page cost ${id}`,
  author: `Author ${id % 50}`,
  isbn: `page-${id}`,
  publicationYear: 1900 + (id % 120),
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

/** The baseline's layout, `BOOK#<id mod 32>`, built here: the store knows only id ranges. */
const OLD_SHARDS = 32;
const oldBookKey = (id: number) => ({ pk: `BOOK#${id % OLD_SHARDS}`, sk: id });
const oldShardQueries = ({ tableName }: BookStoreContext): KeyQuery[] =>
  Array.from({ length: OLD_SHARDS }, (_, shard) => ({
    query: {
      TableName: tableName,
      ScanIndexForward: true,
      ConsistentRead: true,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `BOOK#${shard}` },
    },
    startKey: (after: number) => ({ pk: `BOOK#${shard}`, sk: after }),
  }));

/** The list as the 32-key layout's store read it: a Query per key for its share of the page, merged by id. */
const oldList = (context: BookStoreContext, after: number | undefined, limit: number | undefined) => {
  const reading =
    limit === undefined
      ? { pageSize: streamPageItems(32), readAhead: true }
      : { pageSize: Math.ceil(limit / 32) + 1, readAhead: false };
  return mergeAscending(
    oldShardQueries(context).map(({ query, startKey }) =>
      queryPages(context, query, after === undefined ? undefined : startKey(after), reading),
    ),
    (item: Book) => item.id,
  );
};

type Lister = (after: number | undefined, limit: number | undefined) => AsyncIterable<Book>;

const measure = async (meter: DynamoMeter, layout: string, list: Lister): Promise<PageCost> => {
  const calls: number[] = [];
  let units = 0;
  let after: number | undefined;
  meter.take();
  while (true) {
    const page: Book[] = [];
    // One more than the page, as the service asks (it tells whether a next page exists).
    for await (const item of list(after, PAGE + 1)) {
      page.push(item);
      if (page.length > PAGE) break;
    }
    const metered = meter.take();
    calls.push(metered.length);
    units += metered.reduce((sum, call) => sum + call.capacityUnits, 0);
    if (page.length <= PAGE) break;
    after = page[PAGE - 1]?.id;
  }
  for await (const _ of list(undefined, undefined)) {
    // the whole list, streamed
  }
  const whole = meter.take();
  const sorted = [...calls].sort((a, b) => a - b);
  return {
    layout,
    pages: calls.length,
    medianCalls: sorted[Math.floor((sorted.length - 1) / 2)] as number,
    mostCalls: sorted.at(-1) as number,
    readUnitsPerPage: units / calls.length,
    wholeListCalls: whole.length,
    wholeListReadUnits: whole.reduce((sum, call) => sum + call.capacityUnits, 0),
  };
};

/**
 * The same catalogue in both layouts, listed page by page (20 a page) and whole through the metering
 * proxy, in one run: the 32-key layout (`BOOK#<id mod 32>`, read as its store read it) and id ranges
 * (the store as it is).
 */
export const measurePageCost = async (endpoint: string, meter: DynamoMeter, books: number): Promise<PageCost[]> => {
  const raw = createDocumentClient(endpoint, PATIENT_CLIENT_LIMITS);
  const names = { old: 'page-cost-old', ranges: 'page-cost-ranges' };
  for (const table of Object.values(names)) {
    await ensureTables(createDynamoClient(endpoint), { books: table, auth: `${table}-auth` });
  }
  await seedBooks(raw, names.ranges, 1, books, book);
  let next = 1;
  const writeOld = async () => {
    while (next <= books) {
      const id = next++;
      await raw.send(new PutCommand({ TableName: names.old, Item: { ...toBookItem(book(id), 1), ...oldBookKey(id) } }));
    }
  };
  await Promise.all(Array.from({ length: 8 }, writeOld));
  const metered = createDocumentClient(meter.endpoint, PATIENT_CLIENT_LIMITS);
  const context: BookStoreContext = {
    client: metered,
    tableName: names.old,
    nowSeconds: () => 0,
    idBlocks: new IdBlocksView(),
  };
  const store = new DynamoBookStore(metered, names.ranges);
  return [
    await measure(meter, '32 keys (before)', (after, limit) => oldList(context, after, limit)),
    await measure(meter, 'id ranges (after)', (after, limit) =>
      store.iterate({}, { ...(after !== undefined && { after }), ...(limit !== undefined && { limit }) }),
    ),
  ];
};

export const renderPageCost = ([before, after]: PageCost[], books: number): string => {
  if (!before || !after) return '';
  const ratio = (a: number, b: number) => (b === 0 ? '–' : `${(a / b).toFixed(2)}×`);
  const row = (name: string, pick: (cost: PageCost) => number, digits = 0) => [
    name,
    pick(before).toFixed(digits),
    pick(after).toFixed(digits),
    ratio(pick(after), pick(before)),
  ];
  return [
    `The unfiltered list over ${books.toLocaleString('en-US')} books in both layouts, metered in one run (${before.pages} pages of ${PAGE}):`,
    '',
    markdownTable(
      ['Measure', before.layout, after.layout, 'after / before'],
      [
        row('calls per page, median', (cost) => cost.medianCalls),
        row('calls per page, most', (cost) => cost.mostCalls),
        row('read units per page', (cost) => cost.readUnitsPerPage, 1),
        row('calls, whole list', (cost) => cost.wholeListCalls),
        row('read units, whole list', (cost) => cost.wholeListReadUnits, 1),
      ],
      ['left', 'right', 'right', 'right'],
    ),
  ].join('\n');
};

/** `tsx bench/page-cost.ts [books]`: this measurement alone, on its own Dynoxide. */
if (process.argv[1]?.endsWith('page-cost.ts')) {
  const books = Number(process.argv[2] ?? 2_000);
  const database = await startLocalDatabase();
  const meter = await startDynamoMeter(database.endpoint);
  try {
    console.log(renderPageCost(await measurePageCost(database.endpoint, meter, books), books));
  } finally {
    await meter.close();
    await database.stop();
  }
}
