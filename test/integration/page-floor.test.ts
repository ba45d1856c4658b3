import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynamoMeter, startDynamoMeter } from '../../bench/dynamodb-meter';
import { BookService } from '../../shared/books/book-service';
import { DuplicateIsbnError } from '../../shared/books/errors';
import type { Book, BookInput } from '../../shared/books/types';
import { BOOK_RANGE_SIZE } from '../../shared/store/books/book-items';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { LIST_COUNT_REMEMBERED_SECONDS } from '../../shared/store/books/remembered-list-count';
import { createPatientDocumentClient, createTestTables } from '../support/dynamodb';

/**
 * What pages and the list cap cost, counted on the wire by the bench's metering proxy in front of
 * the DynamoDB emulator (bench/dynamodb-meter.ts), each "container" a store of its own: ids stay
 * adjacent across failed creates and replays, every unfiltered page of 20 is at most two calls (the
 * last one included, from a container that has read nothing yet too), and a list over the cap is
 * refused from a remembered count.
 */
const PAGE = 20;
let meter: DynamoMeter;
let tables: Awaited<ReturnType<typeof createTestTables>>;

beforeAll(async () => {
  tables = await createTestTables();
  meter = await startDynamoMeter(tables.endpoint);
});
afterAll(async () => {
  await meter?.close();
});

/** One container: a store and the service on it, talking to DynamoDB through the meter. */
const container = (tableName: string, clock?: () => number) =>
  new BookService(new DynamoBookStore(createPatientDocumentClient(meter.endpoint), tableName, clock));

const input = (isbn: string, extra: Partial<BookInput> = {}): BookInput => ({
  title: 'Page floor',
  author: 'Floor Author',
  isbn,
  publicationYear: 2001,
  ...extra,
});

/** Every page, following nextAfter: the calls each page cost and the ids it listed. */
const walk = async (service: BookService) => {
  const pages: { calls: number; ids: number[] }[] = [];
  let after: number | undefined;
  do {
    meter.take();
    const page = await service.page({}, { limit: PAGE, ...(after !== undefined && { after }) });
    pages.push({ calls: meter.take().length, ids: page.books.map((book: Book) => book.id) });
    after = page.nextAfter;
  } while (after !== undefined);
  return pages;
};

describe('ids consumed only by books that exist', () => {
  it('150 failed creates and 20 replays between two creates leave their ids adjacent; a page across costs ≤ 2 calls', async () => {
    const own = await createTestTables();
    const service = container(own.names.books);
    const before: number[] = [];
    for (let i = 0; i < 30; i++) before.push((await service.create(input(`floor-a-${i}`))).book.id);
    const keyed = await service.create(input('floor-keyed'), { owner: 'demo', key: 'floor-key' });
    for (let i = 0; i < 150; i++) {
      await expect(service.create(input(`floor-a-${i % 30}`))).rejects.toBeInstanceOf(DuplicateIsbnError);
    }
    for (let i = 0; i < 20; i++) {
      const replay = await service.create(input('floor-keyed'), { owner: 'demo', key: 'floor-key' });
      expect(replay.book.id).toBe(keyed.book.id);
    }
    const next = await service.create(input('floor-after'));
    expect(next.book.id).toBe(keyed.book.id + 1);

    const pages = await walk(container(own.names.books));
    const stretch = pages.find((page) => page.ids.includes(keyed.book.id) || page.ids.includes(next.book.id));
    console.log(`pages across the failed creates: calls ${pages.map((page) => page.calls).join(', ')}`);
    expect(stretch?.calls).toBeLessThanOrEqual(2);
    expect(pages.flatMap((page) => page.ids)).toStrictEqual([...before, keyed.book.id, next.book.id]);
  }, 300_000);
});

describe('every unfiltered page of 20 at most two calls, the last one included', () => {
  it('over books in two id ranges, whose last page crosses the boundary, warm or new container alike', async () => {
    const own = await createTestTables();
    const writer = container(own.names.books);
    const ids: number[] = [];
    // One busy container: ids 1 to 42 in blocks, then a range of its own from 64.
    for (let i = 0; i < 52; i++) ids.push((await writer.create(input(`floor-b-${i}`))).book.id);
    expect(ids.filter((id) => id >= BOOK_RANGE_SIZE)).toHaveLength(10);
    const lastPage = ids.slice(40);
    expect(lastPage.some((id) => id < BOOK_RANGE_SIZE) && lastPage.some((id) => id >= BOOK_RANGE_SIZE)).toBe(true);

    for (const [who, service] of [
      ['the writing container', writer],
      ['a container that has read nothing', container(own.names.books)],
    ] as const) {
      const pages = await walk(service);
      console.log(`${who}: calls per page ${pages.map((page) => page.calls).join(', ')}`);
      expect(pages.flatMap((page) => page.ids)).toStrictEqual(ids);
      expect(pages.map((page) => page.ids.length)).toStrictEqual([20, 20, 12]);
      expect(Math.max(...pages.map((page) => page.calls))).toBeLessThanOrEqual(2);
      // The last page: range 0's tail with its end mark, then range 1 without one, which ends the list.
      expect(pages.at(-1)?.calls).toBe(2);
    }
  }, 300_000);
});

describe('the list cap decided once', () => {
  it('a list over the cap is refused from a remembered count for LIST_COUNT_REMEMBERED_SECONDS, then counted again', async () => {
    const own = await createTestTables();
    let now = Date.UTC(2026, 0, 1);
    const writer = container(own.names.books, () => now);
    const ids: number[] = [];
    for (let i = 0; i < 150; i++) ids.push((await writer.create(input(`floor-c-${i}`))).book.id);
    const cap = 100;
    const reader = container(own.names.books, () => now);

    meter.take();
    expect(await reader.holdsMoreThan({}, cap)).toBe(true); // counted once
    const counted = meter.take().length;
    for (const service of [reader, container(own.names.books, () => now)]) {
      meter.take();
      expect(await service.knownToHoldMoreThan({}, cap)).toBe(true);
      expect(await service.holdsMoreThan({}, cap)).toBe(true);
      const calls = meter.take();
      console.log(
        `a refused list: ${calls.length} calls (${calls.map((call) => call.operation).join(', ')}); the count cost ${counted}`,
      );
      expect(calls.length).toBeLessThanOrEqual(5);
    }

    // Deletes take it under the cap: the verdict stands until it expires, then a count clears it.
    for (const id of ids.slice(0, 60)) await writer.delete(id);
    expect(await reader.knownToHoldMoreThan({}, cap)).toBe(true);
    now += (LIST_COUNT_REMEMBERED_SECONDS + 1) * 1000;
    expect(await reader.knownToHoldMoreThan({}, cap)).toBe(false);
    expect(await reader.holdsMoreThan({}, cap)).toBe(false);
    expect(await reader.knownToHoldMoreThan({}, cap)).toBe(false);
  }, 300_000);

  it('never remembers a list within the cap: a list that grows past it is counted again', async () => {
    const own = await createTestTables();
    const service = container(own.names.books);
    for (let i = 0; i < 30; i++) await service.create(input(`floor-d-${i}`));
    expect(await service.holdsMoreThan({}, 40)).toBe(false);
    expect(await service.knownToHoldMoreThan({}, 40)).toBe(false);
    for (let i = 30; i < 45; i++) await service.create(input(`floor-d-${i}`));
    expect(await service.holdsMoreThan({}, 40)).toBe(true);
  }, 300_000);
});
