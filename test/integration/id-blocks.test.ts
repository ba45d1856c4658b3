import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_BOOK_ID } from '../../shared/books/limits';
import { BOOK_RANGE_SIZE, ID_BLOCKS_KEY } from '../../shared/store/books/book-items';
import { ID_BLOCK_GROW_WINDOW_MS, IdBlockAllocator, MIN_ID_BLOCK } from '../../shared/store/books/id-blocks';
import { IdBlocksView } from '../../shared/store/books/id-blocks-view';
import { IdSpaceExhaustedError } from '../../shared/store/errors';
import { createPatientDocumentClient, createTestTables } from '../support/dynamodb';

/** Id blocks on Dynoxide: the id-blocks item is the only shared state, as across Lambda containers. */
let tables: Awaited<ReturnType<typeof createTestTables>>;
let now = 0;
const idBlocksItem = async () =>
  (await tables.documentClient.send(new GetCommand({ TableName: tables.names.books, Key: ID_BLOCKS_KEY }))).Item;
const highMark = async () => (await idBlocksItem())?.highMark;
const setHighMark = (value: number) =>
  tables.documentClient.send(
    new PutCommand({ TableName: tables.names.books, Item: { ...ID_BLOCKS_KEY, highMark: value } }),
  );
/** A container whose clock the test moves. */
const allocator = () =>
  new IdBlockAllocator(createPatientDocumentClient(tables.endpoint), tables.names.books, new IdBlocksView(), () => now);
const allocateMany = async (ids: IdBlockAllocator, count: number) => {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(await ids.allocate());
  return out;
};
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

beforeEach(async () => {
  tables = await createTestTables();
  now = 1_000_000;
});

describe('ids handed out from blocks sized to the container’s own create rate', () => {
  it(`a quiet container reserves ${MIN_ID_BLOCK} ids, starting at 1: one that creates two books and ends leaves no gap`, async () => {
    expect(await allocateMany(allocator(), 2)).toEqual([1, 2]);
    expect(await highMark()).toBe(2);
    expect(await allocateMany(allocator(), 2)).toEqual([3, 4]);
  });

  it('a busy container reserves 4× more each time, then whole aligned ranges of its own', async () => {
    const ids = allocator();
    expect(await allocateMany(ids, 42)).toEqual(range(1, 42)); // blocks of 2, 8 and 32
    expect(await highMark()).toBe(42);
    // The rest of range 0 (43 … 63) stays unused: the range from 64 is this container's alone.
    expect(await ids.allocate()).toBe(BOOK_RANGE_SIZE);
    expect(await highMark()).toBe(2 * BOOK_RANGE_SIZE - 1);
    expect(await allocateMany(ids, BOOK_RANGE_SIZE - 1)).toEqual(range(BOOK_RANGE_SIZE + 1, 2 * BOOK_RANGE_SIZE - 1));
    expect(await ids.allocate()).toBe(2 * BOOK_RANGE_SIZE);
  });

  it('a container that used its block up slowly starts again at the smallest block', async () => {
    const ids = allocator();
    expect(await allocateMany(ids, 2)).toEqual([1, 2]);
    expect(await ids.allocate()).toBe(3); // quick: a block of 8
    now += ID_BLOCK_GROW_WINDOW_MS + 1;
    expect(await allocateMany(ids, 7)).toEqual(range(4, 10));
    expect(await ids.allocate()).toBe(11);
    expect(await highMark()).toBe(12);
  });

  it('a range is taken only above every id reserved: another container’s block moves it to the next range', async () => {
    const busy = allocator();
    await allocateMany(busy, 42);
    await setHighMark(70); // another container reserved up to 70 meanwhile
    expect(await busy.allocate()).toBe(2 * BOOK_RANGE_SIZE);
    expect(await highMark()).toBe(3 * BOOK_RANGE_SIZE - 1);
  });

  it('gives two containers disjoint blocks, so their ids interleave but never repeat', async () => {
    const first = allocator();
    const second = allocator();
    const a = [await first.allocate(), await second.allocate(), await first.allocate(), await second.allocate()];
    expect(a).toEqual([1, 3, 2, 4]);
  });

  it('shares one reservation among concurrent callers of one container', async () => {
    const ids = allocator();
    const got = await Promise.all(Array.from({ length: 10 }, () => ids.allocate()));
    expect([...got].sort((x, y) => x - y)).toEqual(range(1, 10));
    expect(await highMark()).toBe(10);
  });

  it('writes ids and nothing else on the id-blocks item: its high mark and the fits, the schemaVersion kept', async () => {
    await allocator().allocate();
    const item = (await idBlocksItem()) as Record<string, unknown>;
    expect(
      Object.keys(item)
        .filter((name) => !/^fit\d+$/.test(name))
        .sort(),
    ).toStrictEqual(['highMark', 'pk', 'schemaVersion', 'sk']);
  });

  it('writes the end mark of every range the high mark passes, with the reservation that passes it', async () => {
    const marks = async () =>
      (await tables.documentClient.send(new ScanCommand({ TableName: tables.names.books }))).Items?.filter(
        (item) => item.rangeMark === true,
      )
        .map((item) => [item.pk, item.sk])
        .sort((a, b) => a[1] - b[1]);
    const quiet = allocator();
    await setHighMark(BOOK_RANGE_SIZE - 4); // 60, from a writer that kept no fits: the block is placed exactly
    expect(await allocateMany(quiet, 2)).toEqual([61, 62]);
    expect(await marks()).toStrictEqual([]);
    now += ID_BLOCK_GROW_WINDOW_MS + 1; // slow: the next block is 2 again, and crosses into range 1
    expect(await allocateMany(quiet, 2)).toEqual([63, 64]);
    expect(await marks()).toStrictEqual([['BOOKS#0', BOOK_RANGE_SIZE - 0.5]]);
    const busy = allocator();
    await allocateMany(busy, 42); // 65 … 106 by ADD (fits kept), then a range of its own from 128
    expect(await busy.allocate()).toBe(2 * BOOK_RANGE_SIZE);
    expect(await marks()).toStrictEqual([
      ['BOOKS#0', BOOK_RANGE_SIZE - 0.5],
      ['BOOKS#1', 2 * BOOK_RANGE_SIZE - 0.5],
    ]);
    expect(await highMark()).toBe(3 * BOOK_RANGE_SIZE - 1);
  });

  it('lets eight containers that start on a new table at once all reserve, each a block of its own', async () => {
    const containers = Array.from({ length: 8 }, allocator);
    const ids = (await Promise.all(containers.map((ids) => allocateMany(ids, 12)))).flat();
    expect(new Set(ids).size).toBe(ids.length);
    expect(Math.max(...ids)).toBeLessThanOrEqual((await highMark()) as number);
  });

  it('hands out an id given back (a create that stored nothing) before any new one, lowest first', async () => {
    const ids = allocator();
    expect(await allocateMany(ids, 2)).toEqual([1, 2]);
    ids.release(2);
    ids.release(1);
    expect(await allocateMany(ids, 3)).toEqual([1, 2, 3]);
    expect(await highMark()).toBe(10);
  });

  it('hands out ids below 2^53−1 and refuses a block that would pass it, never an unsafe id', async () => {
    await setHighMark(MAX_BOOK_ID - 3);
    const ids = allocator();
    // The block MAX−2 … MAX−1; the next one (8 ids) would pass MAX and is given up whole.
    expect(await allocateMany(ids, 2)).toEqual([MAX_BOOK_ID - 2, MAX_BOOK_ID - 1]);
    await expect(ids.allocate()).rejects.toThrow(IdSpaceExhaustedError);
    await expect(allocator().allocate()).rejects.toThrow('No book ids left');
  });

  it('hands out 2^53−1 itself from a block that ends exactly there', async () => {
    await setHighMark(MAX_BOOK_ID - 2);
    expect(await allocateMany(allocator(), 2)).toEqual([MAX_BOOK_ID - 1, MAX_BOOK_ID]);
    await expect(allocator().allocate()).rejects.toThrow(IdSpaceExhaustedError);
  });
});
