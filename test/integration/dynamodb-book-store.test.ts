import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { BookNotFoundError, DuplicateIsbnError } from '../../shared/books/errors';
import { MAX_BOOK_ID } from '../../shared/books/limits';
import type { NewBook } from '../../shared/books/types';
import { ID_BLOCKS_KEY } from '../../shared/store/book-items';
import { DynamoBookStore } from '../../shared/store/dynamodb-book-store';
import { IdSpaceExhaustedError } from '../../shared/store/errors';
import { IdBlockAllocator } from '../../shared/store/id-blocks';
import { createPatientDocumentClient, createTestTables } from '../support/dynamodb';

const stamp = '2026-01-01T00:00:00.000Z';
const book = (isbn: string, extra: Partial<NewBook> = {}): NewBook => ({
  title: 'Title',
  author: 'Author',
  isbn,
  publicationYear: 2000,
  createdAt: stamp,
  updatedAt: stamp,
  ...extra,
});

describe('DynamoBookStore against DynamoDB Local', () => {
  let store: DynamoBookStore;
  let tables: Awaited<ReturnType<typeof createTestTables>>;

  beforeAll(async () => {
    tables = await createTestTables();
    store = new DynamoBookStore(createPatientDocumentClient(tables.endpoint), tables.names.books);
  });

  const isbnClaim = async (normalised: string) =>
    (
      await tables.documentClient.send(
        new GetCommand({ TableName: tables.names.books, Key: { pk: `ISBN#${normalised}`, sk: 0 } }),
      )
    ).Item;

  it('assigns increasing ids and reads back what it stored', async () => {
    const first = await store.create(book('int-1'));
    const second = await store.create(book('int-2'));
    expect(second.id).toBeGreaterThan(first.id);
    expect(await store.get(first.id)).toEqual(first);
    expect(await store.get(999_999)).toBeUndefined();
  });

  it('claims the normalised ISBN in the same transaction as the book', async () => {
    const created = await store.create(book('int-3-x'));
    expect(await isbnClaim('INT3X')).toMatchObject({ bookId: created.id });
    await expect(store.create(book('INT 3 X'))).rejects.toBeInstanceOf(DuplicateIsbnError);
  });

  it('never reuses an id, even after a failed create', async () => {
    const before = await store.create(book('int-4'));
    await expect(store.create(book('int-4'))).rejects.toBeInstanceOf(DuplicateIsbnError);
    const after = await store.create(book('int-5'));
    expect(after.id).toBe(before.id + 2);
  });

  it('moves the ISBN claim when an update changes the ISBN, and refuses a taken one', async () => {
    const a = await store.create(book('int-6'));
    const b = await store.create(book('int-7'));
    const moved = await store.update(a.id, (current) => ({ ...current, isbn: 'int-8' }));
    expect(moved.isbn).toBe('int-8');
    expect(await isbnClaim('INT6')).toBeUndefined();
    expect(await isbnClaim('INT8')).toMatchObject({ bookId: a.id });
    await expect(store.update(b.id, (current) => ({ ...current, isbn: 'INT8' }))).rejects.toBeInstanceOf(
      DuplicateIsbnError,
    );
    expect(await store.get(b.id)).toEqual(b);
    expect(await isbnClaim('INT7')).toMatchObject({ bookId: b.id });
  });

  it('releases the ISBN claim on delete, so the ISBN can be used again', async () => {
    const created = await store.create(book('int-9'));
    await store.delete(created.id);
    expect(await store.get(created.id)).toBeUndefined();
    expect(await isbnClaim('INT9')).toBeUndefined();
    await expect(store.delete(created.id)).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(store.update(created.id, (c) => c)).rejects.toBeInstanceOf(BookNotFoundError);
    expect((await store.create(book('int-9'))).isbn).toBe('int-9');
  });

  it('applies concurrent updates to one book one after another, losing none', async () => {
    const created = await store.create(book('int-10', { publicationYear: 1000 }));
    await Promise.all(
      Array.from({ length: 8 }, () =>
        store.update(created.id, (c) => ({ ...c, publicationYear: c.publicationYear + 1 })),
      ),
    );
    expect((await store.get(created.id))?.publicationYear).toBe(1008);
  });

  it('lets exactly one of many concurrent creates take an ISBN', async () => {
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => store.create(book('int-race'))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(failures.every((r) => r.reason instanceof DuplicateIsbnError)).toBe(true);
  });
});

describe('id blocks at the end of the id space (DynamoDB Local)', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  let client: ReturnType<typeof createPatientDocumentClient>;
  const setHighMark = (highMark: number) =>
    client.send(new PutCommand({ TableName: tables.names.books, Item: { ...ID_BLOCKS_KEY, highMark } }));

  beforeAll(async () => {
    tables = await createTestTables();
    client = createPatientDocumentClient(tables.endpoint);
  });

  it('hands out a block’s ids in order, one reservation per block, the next block after the highest reserved', async () => {
    await setHighMark(40);
    const ids = new IdBlockAllocator(client, tables.names.books, 3);
    const issued = [];
    for (let i = 0; i < 7; i++) issued.push(await ids.allocate());
    expect(issued).toStrictEqual([41, 42, 43, 44, 45, 46, 47]);
    const { Item } = await client.send(new GetCommand({ TableName: tables.names.books, Key: ID_BLOCKS_KEY }));
    expect(Item?.highMark).toBe(49);
  });

  it('issues ids up to MAX_BOOK_ID, then refuses with IdSpaceExhaustedError, and keeps refusing', async () => {
    await setHighMark(MAX_BOOK_ID - 3);
    const ids = new IdBlockAllocator(client, tables.names.books, 3);
    const issued = [await ids.allocate(), await ids.allocate(), await ids.allocate()];
    expect(issued).toStrictEqual([MAX_BOOK_ID - 2, MAX_BOOK_ID - 1, MAX_BOOK_ID]);
    await expect(ids.allocate()).rejects.toThrow(new IdSpaceExhaustedError('No book ids left'));
    await expect(ids.allocate()).rejects.toBeInstanceOf(IdSpaceExhaustedError);
  });

  it('refuses a block that would start past MAX_BOOK_ID, so no id above it is ever issued', async () => {
    await setHighMark(MAX_BOOK_ID - 1);
    const store = new DynamoBookStore(client, tables.names.books);
    await expect(store.create(book('exhausted'))).rejects.toBeInstanceOf(IdSpaceExhaustedError);
  });
});

describe('the document client (DynamoDB Local)', () => {
  it('leaves out undefined attributes rather than refusing the write', async () => {
    const tables = await createTestTables();
    await tables.documentClient.send(
      new PutCommand({ TableName: tables.names.books, Item: { pk: 'X', sk: 1, absent: undefined, kept: 'yes' } }),
    );
    const { Item } = await tables.documentClient.send(
      new GetCommand({ TableName: tables.names.books, Key: { pk: 'X', sk: 1 } }),
    );
    expect(Item).toStrictEqual({ pk: 'X', sk: 1, kept: 'yes' });
  });
});
