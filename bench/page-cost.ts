import { startLocalDatabase } from '../local/dynoxide';
import { ensureTables } from '../local/tables';
import type { Book } from '../shared/books/types';
import { DynamoBookStore } from '../shared/store/books/dynamodb-book-store';
import { createDocumentClient, createDynamoClient, PATIENT_CLIENT_LIMITS } from '../shared/store/dynamodb-client';
import { type DynamoMeter, startDynamoMeter } from './dynamodb-meter';
import { markdownTable } from './markdown';
import { seedBooks } from './seed';

const PAGE = 20;

export interface PageCost {
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

type Lister = (after: number | undefined, limit: number | undefined) => AsyncIterable<Book>;

const measure = async (meter: DynamoMeter, list: Lister): Promise<PageCost> => {
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
    pages: calls.length,
    medianCalls: sorted[Math.floor((sorted.length - 1) / 2)] as number,
    mostCalls: sorted.at(-1) as number,
    readUnitsPerPage: units / calls.length,
    wholeListCalls: whole.length,
    wholeListReadUnits: whole.reduce((sum, call) => sum + call.capacityUnits, 0),
  };
};

/**
 * A catalogue listed page by page (20 a page) and whole through the metering proxy, as the store
 * reads it (id ranges). The 32-key layout it replaced is measured once in docs/benchmarks.md.
 */
export const measurePageCost = async (endpoint: string, meter: DynamoMeter, books: number): Promise<PageCost> => {
  const table = 'page-cost-ranges';
  await ensureTables(createDynamoClient(endpoint), { books: table, auth: `${table}-auth` });
  await seedBooks(createDocumentClient(endpoint, PATIENT_CLIENT_LIMITS), table, 1, books, book);
  const store = new DynamoBookStore(createDocumentClient(meter.endpoint, PATIENT_CLIENT_LIMITS), table);
  return measure(meter, (after, limit) =>
    store.iterate({}, { ...(after !== undefined && { after }), ...(limit !== undefined && { limit }) }),
  );
};

export const renderPageCost = (cost: PageCost, books: number): string => {
  const row = (name: string, value: number, digits = 0) => [name, value.toFixed(digits)];
  return [
    `The unfiltered list over ${books.toLocaleString('en-US')} books, metered (${cost.pages} pages of ${PAGE}):`,
    '',
    markdownTable(
      ['Measure', 'id ranges'],
      [
        row('calls per page, median', cost.medianCalls),
        row('calls per page, most', cost.mostCalls),
        row('read units per page', cost.readUnitsPerPage, 1),
        row('calls, whole list', cost.wholeListCalls),
        row('read units, whole list', cost.wholeListReadUnits, 1),
      ],
      ['left', 'right'],
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
