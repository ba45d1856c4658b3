import { startLocalDatabase } from '../local/dynoxide';
import { ensureTables } from '../local/tables';
import { BookService } from '../shared/books/book-service';
import { DEFAULT_LIST_MAX_BOOKS } from '../shared/books/limits';
import type { Book, BookFilter, BookInput } from '../shared/books/types';
import { ListTooLargeError } from '../shared/http/errors';
import { streamedJsonArray } from '../shared/http/streamed-json-array';
import { DynamoBookStore } from '../shared/store/books/dynamodb-book-store';
import { createDocumentClient, createDynamoClient, PATIENT_CLIENT_LIMITS } from '../shared/store/dynamodb-client';
import { type DynamoMeter, startDynamoMeter } from './dynamodb-meter';
import { markdownTable } from './markdown';
import { seedBooks } from './seed';

/**
 * The store's floor, metered in one run through the proxy in front of Dynoxide:
 * - ids: the id gap that 150 failed creates (duplicate ISBN) and 20 Idempotency-Key replays leave
 *   between two creates;
 * - pages: every unfiltered page of 20 over a catalogue, median, most and the last page's calls,
 *   from a container that has listed before;
 * - the list cap: what one refused unpaged list (422) costs over the cap, from the remembered count;
 * - filtered pages: every page of 20 filtered by an author with a few hundred books, by that author
 *   and one year, and by that year alone (measureFilteredPages).
 */
const PAGE = 20;
const FAILED = 150;
const REPLAYS = 20;

export interface FloorRow {
  measure: string;
  value: number;
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

/** The ids of the creates on either side of the failed ones and the replays. */
const idGap = async (create: (book: BookInput, key?: string) => Promise<number>) => {
  await create(input('gap-0'));
  const first = await create(input('gap-1'), 'gap-key');
  for (let i = 0; i < FAILED; i++) await create(input('gap-0')).catch(() => undefined);
  for (let i = 0; i < REPLAYS; i++) await create(input('gap-1'), 'gap-key');
  return (await create(input('gap-2'))) - first;
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
  return { median: median(calls), most: most(calls), last: calls.at(-1) as number };
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

interface FilteredPages {
  /** Calls of the first page on a container that has read nothing (its schema check included). */
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
  pages: FilteredPages;
}

/**
 * Every page of 20 of three filters over one catalogue of `books` books, each filter read by a new
 * container (a store that has read nothing), whose first page is counted apart; the pages that
 * follow are those of a warm container.
 */
export const measureFilteredPages = async (
  endpoint: string,
  meter: DynamoMeter,
  books: number,
  tableName = 'floor-filters',
): Promise<FilteredMeasure[]> => {
  const table = await newTable(endpoint, tableName);
  await seedBooks(createDocumentClient(endpoint, PATIENT_CLIENT_LIMITS), table, 1, books, filteredBook);
  const filters: [string, BookFilter][] = [
    ['by author', { author: PROLIFIC_AUTHOR }],
    ['by author and year', { author: PROLIFIC_AUTHOR, year: FILTER_YEAR }],
    ['by year alone', { year: FILTER_YEAR }],
  ];
  const measures: FilteredMeasure[] = [];
  for (const [name, filter] of filters) {
    const store = new DynamoBookStore(createDocumentClient(meter.endpoint, PATIENT_CLIENT_LIMITS), table);
    const pages = await filteredPages(meter, new BookService(store), filter);
    measures.push({ filter: name, matches: pages.ids.length, pages });
  }
  return measures;
};

export const filteredRows = (measures: FilteredMeasure[]): FloorRow[] =>
  measures.flatMap(({ filter, matches, pages }) => {
    const label = `calls per page of ${PAGE} ${filter} (${matches} books, ${pages.calls.length} pages)`;
    return [
      { measure: `${label}, median`, value: median(pages.calls) },
      { measure: `${label}, most`, value: most(pages.calls) },
      { measure: `calls of a new container's first page ${filter}`, value: pages.first },
    ];
  });

/** One unpaged list over the cap, as the list function decides it: the calls until ListTooLargeError. */
const refusedListCalls = async (meter: DynamoMeter, service: BookService, cap: number) => {
  meter.take();
  try {
    await streamedJsonArray(service.list({}), {
      route: 'ListBooks',
      cap: {
        maxItems: cap,
        holdsMore: () => service.holdsMoreThan({}, cap),
        knownToHoldMore: () => service.knownToHoldMoreThan({}, cap),
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
  const metered = () => createDocumentClient(meter.endpoint, PATIENT_CLIENT_LIMITS);
  const creating = new BookService(new DynamoBookStore(metered(), await newTable(endpoint, 'floor-ids')));
  const gap = await idGap(
    async (fields, key) =>
      (await creating.create(fields, key === undefined ? undefined : { owner: 'bench', key })).book.id,
  );

  const pagesTable = await newTable(endpoint, 'floor-pages');
  await seedBooks(createDocumentClient(endpoint, PATIENT_CLIENT_LIMITS), pagesTable, 1, pageBooks, book);
  const pages = await pageCalls(meter, new BookService(new DynamoBookStore(metered(), pagesTable)));

  const capTable = await newTable(endpoint, 'floor-cap');
  await seedBooks(createDocumentClient(endpoint, PATIENT_CLIENT_LIMITS), capTable, 1, capBooks, book);
  const remembering = new BookService(new DynamoBookStore(metered(), capTable));
  await remembering.holdsMoreThan({}, cap); // the count that is then remembered
  const refused = await refusedListCalls(meter, remembering, cap);

  return [
    { measure: `id gap across ${FAILED} failed creates and ${REPLAYS} replays`, value: gap },
    { measure: `calls per page of ${PAGE}, median`, value: pages.median },
    { measure: `calls per page of ${PAGE}, most`, value: pages.most },
    { measure: 'calls of the last page', value: pages.last },
    {
      measure: `calls of one refused unpaged list, ${capBooks.toLocaleString('en-US')} books, cap ${cap.toLocaleString('en-US')}`,
      value: refused,
    },
    ...filteredRows(await measureFilteredPages(endpoint, meter, pageBooks)),
  ];
};

export const renderPageFloor = (rows: FloorRow[], pageBooks: number): string =>
  [
    `The store's floor, metered in one run (pages over ${pageBooks.toLocaleString('en-US')} books seeded in id order; ` +
      `filtered pages over another ${pageBooks.toLocaleString('en-US')}, one author's every ${PROLIFIC_EVERY}th over ${PROLIFIC_YEARS} years):`,
    '',
    markdownTable(
      ['Measure', 'calls'],
      rows.map((row) => [row.measure, String(row.value)]),
      ['left', 'right'],
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
