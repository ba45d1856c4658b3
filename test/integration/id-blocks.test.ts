import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_BOOK_ID } from '../../shared/books/limits';
import { ID_BLOCKS_KEY } from '../../shared/store/book-items';
import { IdSpaceExhaustedError } from '../../shared/store/errors';
import { ID_BLOCK_SIZE, IdBlockAllocator } from '../../shared/store/id-blocks';
import { createTestTables } from '../support/dynamodb';

/** Id blocks on DynamoDB Local: the counter item is the only shared state, as across Lambda containers. */
let tables: Awaited<ReturnType<typeof createTestTables>>;
const highMark = async () =>
  (await tables.documentClient.send(new GetCommand({ TableName: tables.names.books, Key: ID_BLOCKS_KEY }))).Item
    ?.highMark;
const allocator = (blockSize?: number) => new IdBlockAllocator(tables.documentClient, tables.names.books, blockSize);
const allocateMany = async (ids: IdBlockAllocator, count: number) => {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(await ids.allocate());
  return out;
};

beforeEach(async () => {
  tables = await createTestTables();
});

describe('ids handed out from reserved blocks', () => {
  it(`reserves ${ID_BLOCK_SIZE} ids per counter write by default, starting at 1`, async () => {
    const ids = allocator();
    expect(await allocateMany(ids, ID_BLOCK_SIZE)).toEqual(Array.from({ length: ID_BLOCK_SIZE }, (_, i) => i + 1));
    expect(await highMark()).toBe(ID_BLOCK_SIZE);
    expect(await ids.allocate()).toBe(ID_BLOCK_SIZE + 1);
    expect(await highMark()).toBe(2 * ID_BLOCK_SIZE);
  });

  it('moves to a new block exactly when one is used up', async () => {
    const ids = allocator(3);
    expect(await allocateMany(ids, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(await highMark()).toBe(9);
  });

  it('gives two containers disjoint blocks, so their ids interleave but never repeat', async () => {
    const first = allocator(3);
    const second = allocator(3);
    const a = [await first.allocate(), await second.allocate(), await first.allocate(), await second.allocate()];
    expect(a).toEqual([1, 4, 2, 5]);
  });

  it('shares one reservation among concurrent callers of one container', async () => {
    const ids = allocator(10);
    const got = await Promise.all(Array.from({ length: 10 }, () => ids.allocate()));
    expect([...got].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await highMark()).toBe(10);
  });

  it('hands out ids below 2^53−1 and refuses a block that would pass it, never an unsafe id', async () => {
    await tables.documentClient.send(
      new PutCommand({ TableName: tables.names.books, Item: { ...ID_BLOCKS_KEY, highMark: MAX_BOOK_ID - 5 } }),
    );
    const ids = allocator(4);
    // The block MAX−4 … MAX−1; the next one, MAX … MAX+3, is given up whole.
    expect(await allocateMany(ids, 4)).toEqual([MAX_BOOK_ID - 4, MAX_BOOK_ID - 3, MAX_BOOK_ID - 2, MAX_BOOK_ID - 1]);
    await expect(ids.allocate()).rejects.toThrow(IdSpaceExhaustedError);
    await expect(allocator(4).allocate()).rejects.toThrow('No book ids left');
  });

  it('hands out 2^53−1 itself from a block that ends exactly there', async () => {
    await tables.documentClient.send(
      new PutCommand({ TableName: tables.names.books, Item: { ...ID_BLOCKS_KEY, highMark: MAX_BOOK_ID - 1 } }),
    );
    // One id left: a block of 1 gets exactly it.
    expect(await allocator(1).allocate()).toBe(MAX_BOOK_ID);
    await expect(allocator(1).allocate()).rejects.toThrow(IdSpaceExhaustedError);
  });
});
