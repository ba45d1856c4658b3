import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { seedBooks } from '../../bench/seed';
import { checkBooksTable } from '../../ops/invariants';
import { BOOK_FIELDS } from '../../shared/books/book-schema';
import {
  BookNotFoundError,
  DuplicateIsbnError,
  IdempotencyKeyReusedError,
  PreconditionFailedError,
} from '../../shared/books/errors';
import { MAX_BOOK_ID } from '../../shared/books/limits';
import type { ListOptions } from '../../shared/books/ports';
import type { BookFilter, BookInput } from '../../shared/books/types';
import {
  AUTHOR_SHARDS,
  BOOK_PROJECTION,
  BOOK_RANGE_SIZE,
  BY_AUTHOR_YEAR_INDEX,
  bookKey,
  ID_BLOCKS_KEY,
  idempotencyRecordKey,
  LIST_MERGE_BUDGET_BYTES,
  MAX_BOOK_ITEM_BYTES,
  streamPageItems,
  toBookItem,
  YEAR_SHARDS,
} from '../../shared/store/books/book-items';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { IdBlockAllocator } from '../../shared/store/books/id-blocks';
import { SCHEMA_VERSION } from '../../shared/store/books/schema-version';
import { updateExpression } from '../../shared/store/books/update-expressions';
import { IdSpaceExhaustedError, StoreInvariantError } from '../../shared/store/errors';
import { newBook, STAMP } from '../support/books';
import { createPatientDocumentClient, createRecordingDocumentClient, createTestTables } from '../support/dynamodb';

describe('DynamoBookStore against Dynoxide', () => {
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

  const create = async (...args: Parameters<DynamoBookStore['create']>) => (await store.create(...args)).book;
  const change = (fields: Partial<BookInput>) => ({ ...fields, updatedAt: '2026-02-02T00:00:00.000Z' });

  it('assigns increasing ids at version 1 and reads back what it stored', async () => {
    const first = await store.create(newBook('int-1'));
    const second = await store.create(newBook('int-2'));
    expect(first.version).toBe(1);
    expect(second.book.id).toBeGreaterThan(first.book.id);
    expect(await store.get(first.book.id)).toEqual(first);
    expect(await store.get(999_999)).toBeUndefined();
  });

  it('claims the normalised ISBN in the same transaction as the book', async () => {
    const created = await create(newBook('int-3-x'));
    expect(await isbnClaim('INT3X')).toMatchObject({ bookId: created.id });
    await expect(store.create(newBook('INT 3 X'))).rejects.toBeInstanceOf(DuplicateIsbnError);
  });

  it('takes no id for a failed create: the next book gets the id the failed one gave back', async () => {
    const before = await create(newBook('int-4'));
    await expect(store.create(newBook('int-4'))).rejects.toBeInstanceOf(DuplicateIsbnError);
    const after = await create(newBook('int-5'));
    expect(after.id).toBe(before.id + 1);
    expect(await store.get(before.id)).toMatchObject({ book: { isbn: 'int-4' } });
  });

  it('removes an attribute a change supplies as undefined (a PUT omitting an optional field), sets the rest', async () => {
    const { id } = await create(newBook('int-remove'));
    const Key = bookKey(id);
    const TableName = tables.names.books;
    await tables.documentClient.send(
      new UpdateCommand({
        TableName,
        Key,
        ...updateExpression({ note: 'kept until replaced' }, ['attribute_exists(pk)'], {}),
      }),
    );
    expect((await tables.documentClient.send(new GetCommand({ TableName, Key }))).Item).toHaveProperty('note');
    await tables.documentClient.send(
      new UpdateCommand({
        TableName,
        Key,
        ...updateExpression({ note: undefined, title: 'Replaced' }, ['attribute_exists(pk)'], {}),
      }),
    );
    const item = (await tables.documentClient.send(new GetCommand({ TableName, Key }))).Item;
    expect(item).not.toHaveProperty('note');
    expect(item).toMatchObject({ title: 'Replaced', version: 3 });
  });

  it('moves the ISBN claim when an update changes the ISBN, and refuses a taken one', async () => {
    const a = await create(newBook('int-6'));
    const b = await store.create(newBook('int-7'));
    const moved = await store.update(a.id, change({ isbn: 'int-8' }));
    expect(moved).toEqual({ book: { ...a, isbn: 'int-8', updatedAt: '2026-02-02T00:00:00.000Z' }, version: 2 });
    expect(await store.get(a.id)).toEqual(moved);
    expect(await isbnClaim('INT6')).toBeUndefined();
    expect(await isbnClaim('INT8')).toMatchObject({ bookId: a.id });
    await expect(store.update(b.book.id, change({ isbn: 'INT8' }))).rejects.toBeInstanceOf(DuplicateIsbnError);
    expect(await store.get(b.book.id)).toEqual(b);
    expect(await isbnClaim('INT7')).toMatchObject({ bookId: b.book.id });
  });

  it('releases the ISBN claim on delete, so the ISBN can be used again', async () => {
    const created = await create(newBook('int-9'));
    await store.delete(created.id);
    expect(await store.get(created.id)).toBeUndefined();
    expect(await isbnClaim('INT9')).toBeUndefined();
    await expect(store.delete(created.id)).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(store.update(created.id, change({}))).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(store.update(created.id, change({ isbn: 'int-9' }), { match: [1] })).rejects.toBeInstanceOf(
      BookNotFoundError,
    );
    expect((await create(newBook('int-9'))).isbn).toBe('int-9');
  });

  it('applies concurrent updates to one book one after another: each gets its own version', async () => {
    const created = await create(newBook('int-10', { publicationYear: 1000 }));
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.update(created.id, change({ publicationYear: 1001 + i }))),
    );
    expect(results.map((r) => r.version).sort((x, y) => x - y)).toStrictEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const last = results.find((r) => r.version === 9);
    expect(await store.get(created.id)).toEqual(last);
  });

  it('lets exactly one of many concurrent creates take an ISBN', async () => {
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => store.create(newBook('int-race'))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(failures.every((r) => r.reason instanceof DuplicateIsbnError)).toBe(true);
  });
});

describe('id blocks at the end of the id space (Dynoxide)', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  let client: ReturnType<typeof createPatientDocumentClient>;
  const setHighMark = (highMark: number) =>
    client.send(
      new PutCommand({
        TableName: tables.names.books,
        Item: { ...ID_BLOCKS_KEY, highMark, schemaVersion: SCHEMA_VERSION },
      }),
    );

  beforeAll(async () => {
    tables = await createTestTables();
    client = createPatientDocumentClient(tables.endpoint);
  });

  it('hands out a block’s ids in order, one reservation per block, the next block after the highest reserved', async () => {
    await setHighMark(40);
    const ids = new IdBlockAllocator(client, tables.names.books);
    const issued = [];
    for (let i = 0; i < 7; i++) issued.push(await ids.allocate());
    expect(issued).toStrictEqual([41, 42, 43, 44, 45, 46, 47]); // blocks of 2 and 8
    const { Item } = await client.send(new GetCommand({ TableName: tables.names.books, Key: ID_BLOCKS_KEY }));
    expect(Item?.highMark).toBe(50);
  });

  it('issues ids up to MAX_BOOK_ID, then refuses with IdSpaceExhaustedError, and keeps refusing', async () => {
    await setHighMark(MAX_BOOK_ID - 2);
    const ids = new IdBlockAllocator(client, tables.names.books);
    const issued = [await ids.allocate(), await ids.allocate()];
    expect(issued).toStrictEqual([MAX_BOOK_ID - 1, MAX_BOOK_ID]);
    await expect(ids.allocate()).rejects.toThrow(new IdSpaceExhaustedError('No book ids left'));
    await expect(ids.allocate()).rejects.toBeInstanceOf(IdSpaceExhaustedError);
  });

  it('refuses a block that would start past MAX_BOOK_ID, so no id above it is ever issued', async () => {
    await setHighMark(MAX_BOOK_ID - 1);
    const store = new DynamoBookStore(client, tables.names.books);
    await expect(store.create(newBook('exhausted'))).rejects.toBeInstanceOf(IdSpaceExhaustedError);
  });
});

describe('the document client (Dynoxide)', () => {
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

describe('DynamoBookStore: what it sends, and the invariants it reports (Dynoxide)', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  let recorded: ReturnType<typeof createRecordingDocumentClient>;
  let store: DynamoBookStore;
  const queries = () => recorded.sent.filter((command) => command.name === 'QueryCommand');
  /** Where each Query resumed, as the store's keys (list Queries go out in attribute-value form). */
  const startKeys = () => queries().map((command) => plain(command.input.ExclusiveStartKey));
  const list = async (filter: BookFilter, options?: ListOptions) => {
    const ids: number[] = [];
    for await (const found of store.iterate(filter, options)) ids.push(found.id);
    return ids;
  };
  const put = (Item: Record<string, unknown>) =>
    tables.documentClient.send(new PutCommand({ TableName: tables.names.books, Item }));
  const remove = (Key: Record<string, unknown>) =>
    tables.documentClient.send(new DeleteCommand({ TableName: tables.names.books, Key }));
  const isbnClaim = async (normalised: string) =>
    (
      await tables.documentClient.send(
        new GetCommand({ TableName: tables.names.books, Key: { pk: `ISBN#${normalised}`, sk: 0 } }),
      )
    ).Item;

  beforeAll(async () => {
    tables = await createTestTables();
    recorded = createRecordingDocumentClient(tables.endpoint);
    store = new DynamoBookStore(recorded.client, tables.names.books);
    for (let i = 0; i < 6; i++)
      await store.create(newBook(`edge-${i}`, { author: 'Edge Author', publicationYear: 1990 }));
  });

  it('asks each key for its share of a limited page plus one, never more than the limit', async () => {
    recorded.sent.length = 0;
    expect(await list({}, { limit: 3 })).toStrictEqual([1, 2, 3]);
    expect(new Set(queries().map((command) => command.input.Limit))).toStrictEqual(new Set([3])); // one range holds them
    recorded.sent.length = 0;
    await list({ author: 'edge author' }, { limit: 100 });
    // Two author keys: each asked for the whole page, so a page is two Queries however the matches fall.
    expect(queries().map((command) => command.input.Limit)).toStrictEqual([100, 100]);
    recorded.sent.length = 0;
    await list({ year: 1990 }, { limit: 100 });
    expect(new Set(queries().map((command) => command.input.Limit))).toStrictEqual(new Set([8])); // ⌈100/16⌉ + 1
    recorded.sent.length = 0;
    await list({ year: 1990 }, { limit: 1 });
    expect(new Set(queries().map((command) => command.input.Limit))).toStrictEqual(new Set([1]));
    recorded.sent.length = 0;
    await list({});
    // A whole list reads pages sized so the merge holds LIST_MERGE_BUDGET_BYTES at most.
    expect(new Set(queries().map((command) => command.input.Limit))).toStrictEqual(new Set([streamPageItems(1)]));
    recorded.sent.length = 0;
    await list({ year: 1990 });
    expect(new Set(queries().map((command) => command.input.Limit))).toStrictEqual(new Set([streamPageItems(16)]));
  });

  it('resumes every key after the cursor’s id, on the table and on each index', async () => {
    recorded.sent.length = 0;
    expect(await list({}, { after: 2 })).toStrictEqual([3, 4, 5, 6]);
    expect(startKeys()).toContainEqual({ pk: 'BOOKS#0', sk: 2 });
    recorded.sent.length = 0;
    expect(await list({ author: 'EDGE AUTHOR' }, { after: 4 })).toStrictEqual([5, 6]);
    expect(startKeys()).toStrictEqual([
      { pk: 'BOOKS#0', sk: 4, authorShard: '0#edge author' },
      { pk: 'BOOKS#0', sk: 4, authorShard: '1#edge author' },
    ]);
    recorded.sent.length = 0;
    expect(await list({ author: 'EDGE AUTHOR', year: 1990 }, { after: 4 })).toStrictEqual([5, 6]);
    expect(startKeys()).toContainEqual({
      pk: 'BOOKS#0',
      sk: 4,
      authorShard: '1#edge author',
      yearId: '0000000000001990#0000000000000004',
    });
    recorded.sent.length = 0;
    expect(await list({ year: 1990 }, { after: 5 })).toStrictEqual([6]);
    expect(startKeys()).toContainEqual({
      pk: 'BOOKS#0',
      sk: 5,
      yearShard: '3#1990',
    });
    recorded.sent.length = 0;
    await list({});
    expect(queries().every((command) => !('ExclusiveStartKey' in command.input))).toBe(true);
  });

  it('a limit of 0 (or less) lists nothing; a limit stops the listing there', async () => {
    expect(await list({}, { limit: 0 })).toStrictEqual([]);
    expect(await list({}, { limit: -1 })).toStrictEqual([]);
    expect(await list({}, { limit: 1 })).toStrictEqual([1]);
    expect(await list({}, { limit: 6 })).toStrictEqual([1, 2, 3, 4, 5, 6]);
  });

  it('lists no books, and asks DynamoDB nothing, for an author no index key can hold', async () => {
    recorded.sent.length = 0;
    expect(await list({ author: 'a'.repeat(2047) })).toStrictEqual([]); // "0#" + 2047 bytes: 2049
    expect(queries()).toHaveLength(0);
    expect(await list({ author: 'é'.repeat(1024) })).toStrictEqual([]);
    expect(queries()).toHaveLength(0);
    expect(await list({ author: 'a'.repeat(2046) })).toStrictEqual([]); // 2048 bytes: asked, found nothing
    expect(queries()).toHaveLength(2);
  });

  it('a create whose id is taken by an item written behind its back is a StoreInvariantError, not a duplicate', async () => {
    const own = await createTestTables();
    const client = createPatientDocumentClient(own.endpoint);
    await client.send(new PutCommand({ TableName: own.names.books, Item: { pk: 'BOOKS#0', sk: 1, id: 1 } }));
    const fresh = new DynamoBookStore(client, own.names.books);
    await expect(fresh.create(newBook('edge-taken-id'))).rejects.toThrow(
      new StoreInvariantError('Book 1 already exists though its id block issued it'),
    );
    expect((await fresh.create(newBook('edge-taken-id'))).book.id).toBe(2);
  });

  it('a delete whose ISBN claim is gone is a StoreInvariantError, and deletes nothing', async () => {
    const target = await store.create(newBook('edge-claim-gone'));
    await remove({ pk: 'ISBN#EDGECLAIMGONE', sk: 0 });
    await expect(store.delete(target.book.id)).rejects.toThrow(
      new StoreInvariantError(`ISBN claim of book ${target.book.id} is missing or foreign`),
    );
    expect(await store.get(target.book.id)).toEqual(target);
  });

  it('an ISBN change whose old claim belongs to another book is a StoreInvariantError, and changes nothing', async () => {
    const target = await store.create(newBook('edge-foreign'));
    await put({ pk: 'ISBN#EDGEFOREIGN', sk: 0, bookId: 1 });
    await expect(store.update(target.book.id, { isbn: 'edge-foreign-2', updatedAt: 'u' })).rejects.toThrow(
      new StoreInvariantError(`ISBN claim of book ${target.book.id} is missing or foreign`),
    );
    expect(await store.get(target.book.id)).toEqual(target);
  });

  it('an update that keeps the ISBN is one UpdateItem that returns the new item and, on failure, the old one', async () => {
    const target = await store.create(newBook('edge-keep'));
    recorded.sent.length = 0;
    const updated = await store.update(
      target.book.id,
      { isbn: 'EDGE KEEP', title: 'Kept ISBN', updatedAt: 'u' },
      { match: [1] },
    );
    expect(updated).toEqual({
      book: { ...target.book, isbn: 'EDGE KEEP', title: 'Kept ISBN', updatedAt: 'u' },
      version: 2,
    });
    expect(recorded.sent.map((command) => command.name)).toStrictEqual(['UpdateItemCommand']);
    expect(recorded.sent[0]?.input).toMatchObject({
      ConditionExpression: 'attribute_exists(pk) AND isbnKey = :isbnKey AND version IN (:ifMatch0)',
      ExpressionAttributeValues: { ':isbnKey': 'EDGEKEEP', ':ifMatch0': 1, ':one': 1 },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(recorded.sent[0]?.input.UpdateExpression).toMatch(/^SET .* ADD version :one$/);
  });

  it('a PATCH without an ISBN sets only the supplied fields, with no ISBN condition', async () => {
    const target = await store.create(newBook('edge-patch', { author: 'Old Author' }));
    recorded.sent.length = 0;
    const updated = await store.update(target.book.id, { author: 'New Author', updatedAt: 'u' });
    expect(updated.book).toEqual({ ...target.book, author: 'New Author', updatedAt: 'u' });
    const input = recorded.sent[0]?.input;
    expect(input?.ConditionExpression).toBe('attribute_exists(pk)');
    expect(Object.values(input?.ExpressionAttributeNames ?? {}).sort()).toStrictEqual([
      'author',
      'authorKey',
      'authorShard',
      'updatedAt',
    ]);
    expect(await list({ author: 'new author' })).toContain(target.book.id);
    expect(await list({ author: 'old author' })).not.toContain(target.book.id);
  });

  it('If-Match: a stale or foreign version is refused with the current one, a missing book is 404 first', async () => {
    const target = await store.create(newBook('edge-if-match'));
    await store.update(target.book.id, { title: 'v2', updatedAt: 'u' });
    for (const condition of [[1], [], [1, 3]]) {
      await expect(
        store.update(target.book.id, { title: 'lost', updatedAt: 'u' }, { match: condition }),
      ).rejects.toThrow(new PreconditionFailedError(target.book.id, 2));
      await expect(
        store.update(target.book.id, { isbn: 'moved', updatedAt: 'u' }, { match: condition }),
      ).rejects.toThrow(new PreconditionFailedError(target.book.id, 2));
      await expect(store.delete(target.book.id, { match: condition })).rejects.toThrow(
        new PreconditionFailedError(target.book.id, 2),
      );
    }
    expect((await store.get(target.book.id))?.book.title).toBe('v2');
    expect(await isbnClaim('EDGEIFMATCH')).toMatchObject({ bookId: target.book.id });
    const moved = await store.update(target.book.id, { isbn: 'edge-if-match-2', updatedAt: 'u' }, { match: [2] });
    expect(moved.version).toBe(3);
    expect((await store.update(target.book.id, { title: 'star', updatedAt: 'u' }, { match: '*' })).version).toBe(4);
    await store.delete(target.book.id, { match: [4] });
    await expect(store.update(target.book.id, { title: 'x', updatedAt: 'u' }, { match: [4] })).rejects.toBeInstanceOf(
      BookNotFoundError,
    );
    await expect(store.delete(target.book.id, { match: '*' })).rejects.toBeInstanceOf(BookNotFoundError);
  });

  it('If-None-Match is a term of the write’s own condition: * never writes an existing book, a listed version refuses that version only', async () => {
    const target = await store.create(newBook('edge-none-match'));
    recorded.sent.length = 0;
    await expect(store.update(target.book.id, { title: 'lost', updatedAt: 'u' }, { noneMatch: '*' })).rejects.toThrow(
      new PreconditionFailedError(target.book.id, 1, 'noneMatch'),
    );
    expect(recorded.sent[0]?.input.ConditionExpression).toBe('attribute_exists(pk) AND attribute_not_exists(pk)');
    recorded.sent.length = 0;
    await expect(
      store.update(target.book.id, { title: 'lost', updatedAt: 'u' }, { noneMatch: [3, 1] }),
    ).rejects.toThrow(new PreconditionFailedError(target.book.id, 1, 'noneMatch'));
    expect(recorded.sent[0]?.input).toMatchObject({
      ConditionExpression: 'attribute_exists(pk) AND NOT version IN (:ifNoneMatch0, :ifNoneMatch1)',
      ExpressionAttributeValues: { ':ifNoneMatch0': 3, ':ifNoneMatch1': 1 },
    });
    await expect(store.delete(target.book.id, { noneMatch: [1] })).rejects.toThrow(
      new PreconditionFailedError(target.book.id, 1, 'noneMatch'),
    );
    expect((await store.update(target.book.id, { title: 'v2', updatedAt: 'u' }, { noneMatch: [3] })).version).toBe(2);
    await store.delete(target.book.id, { noneMatch: [1] });
    await expect(
      store.update(target.book.id, { title: 'x', updatedAt: 'u' }, { noneMatch: '*' }),
    ).rejects.toBeInstanceOf(BookNotFoundError);
  });

  it('answers an unfiltered count that reached its limit from the verdict it left, without counting again', async () => {
    const books = await store.countUpTo({}, 1_000);
    expect(books).toBeGreaterThan(0);
    expect(books).toBeLessThan(1_000); // a count within the limit is the count
    expect(await store.countUpTo({}, books)).toBe(books);
    recorded.sent.length = 0;
    expect(await store.countUpTo({}, books)).toBe(books);
    expect(queries()).toStrictEqual([]);
  });
});

describe('DynamoBookStore when another writer gets in between its read and its write (Dynoxide)', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  /** A store whose first transaction waits for `interfere` to finish first: a writer that was faster. */
  const interrupted = (interfere: () => Promise<unknown>) => {
    const recorded = createRecordingDocumentClient(tables.endpoint);
    let pending = true;
    recorded.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (pending && context.commandName === 'TransactWriteItemsCommand') {
          pending = false;
          await interfere();
        }
        return next(args);
      },
      { step: 'initialize', name: 'interfere' },
    );
    const transactions = () => recorded.sent.filter((command) => command.name === 'TransactWriteItemsCommand');
    return { store: new DynamoBookStore(recorded.client, tables.names.books), transactions };
  };

  beforeAll(async () => {
    tables = await createTestTables();
  });

  it('a delete runs again on the newer version, and deletes it', async () => {
    const other = new DynamoBookStore(createPatientDocumentClient(tables.endpoint), tables.names.books);
    const target = await other.create(newBook('race-delete'));
    const { store, transactions } = interrupted(() => other.update(target.book.id, { title: 'newer', updatedAt: 'u' }));
    await store.delete(target.book.id);
    expect(await other.get(target.book.id)).toBeUndefined();
    expect(transactions()).toHaveLength(2);
  });

  it('an update that moves the ISBN runs again on the newer version, keeping the other writer’s change', async () => {
    const other = new DynamoBookStore(createPatientDocumentClient(tables.endpoint), tables.names.books);
    const target = await other.create(newBook('race-move'));
    const { store, transactions } = interrupted(() => other.update(target.book.id, { title: 'newer', updatedAt: 'u' }));
    const moved = await store.update(target.book.id, { isbn: 'race-moved', updatedAt: 'u' });
    expect(moved).toMatchObject({ book: { title: 'newer', isbn: 'race-moved' }, version: 3 });
    expect(await other.get(target.book.id)).toEqual(moved);
    expect(transactions()).toHaveLength(2);
  });
});

describe('DynamoBookStore: one key holding more than its share of a page (Dynoxide)', () => {
  let recorded: ReturnType<typeof createRecordingDocumentClient>;
  let store: DynamoBookStore;
  /** The four of 64 books whose id falls in year shard 0: by "Lopsided", of 1800 and 1801 in turn, and of year 1066. */
  let lopsided: number[];

  beforeAll(async () => {
    const own = await createTestTables();
    recorded = createRecordingDocumentClient(own.endpoint);
    store = new DynamoBookStore(recorded.client, own.names.books);
    const created = await Promise.all(Array.from({ length: 64 }, (_, i) => store.create(newBook(`lop-${i}`))));
    lopsided = created.map((each) => each.book.id).filter((id) => id % YEAR_SHARDS === 0);
    for (const [n, id] of lopsided.entries()) {
      await store.update(id, { author: 'Lopsided', publicationYear: n % 2 ? 1801 : 1800, updatedAt: 'u' });
    }
  });
  const list = async (filter: BookFilter, options?: ListOptions) => {
    const ids: number[] = [];
    for await (const found of store.iterate(filter, options)) ids.push(found.id);
    return ids;
  };
  const queriesOf = (placeholder: string, value: string) =>
    recorded.sent.filter(
      (command) =>
        command.name === 'QueryCommand' && plain(command.input.ExpressionAttributeValues)?.[placeholder] === value,
    );

  it('over two author keys, asks each for the whole page: a page is two Queries however the matches fall', async () => {
    // Every book by Lopsided has an even id, so all are under author key 0.
    expect(lopsided.every((id) => id % AUTHOR_SHARDS === 0)).toBe(true);
    recorded.sent.length = 0;
    expect(await list({ author: 'lopsided' }, { limit: 4 })).toStrictEqual(lopsided);
    expect(recorded.sent.filter((command) => command.name === 'QueryCommand')).toHaveLength(AUTHOR_SHARDS);
    expect(queriesOf(':author', '0#lopsided').map((command) => command.input.Limit)).toStrictEqual([4]);
  });

  it('over sixteen year keys, asks each for its share and reads that key’s next page when the merge needs it', async () => {
    for (const id of lopsided) await store.update(id, { publicationYear: 1066, updatedAt: 'u' });
    try {
      recorded.sent.length = 0;
      expect(await list({ year: 1066 }, { limit: 4 })).toStrictEqual(lopsided);
      const shardZero = queriesOf(':year', '0#1066');
      expect(shardZero.map((command) => command.input.Limit)).toStrictEqual([2, 2]); // ⌈4/16⌉ + 1 each
      expect(plain(shardZero[1]?.input.ExclusiveStartKey)).toMatchObject({ sk: lopsided[1] });
    } finally {
      for (const [n, id] of lopsided.entries())
        await store.update(id, { publicationYear: n % 2 ? 1801 : 1800, updatedAt: 'u' });
    }
  });

  it('an author and a year together: that year’s part of the author’s two keys, every item read a match', async () => {
    recorded.sent.length = 0;
    expect(await list({ author: 'LOPSIDED', year: 1800 })).toStrictEqual([lopsided[0], lopsided[2]]);
    const queries = recorded.sent.filter((command) => command.name === 'QueryCommand');
    expect(queries.map((command) => command.input.IndexName)).toStrictEqual([
      BY_AUTHOR_YEAR_INDEX,
      BY_AUTHOR_YEAR_INDEX,
    ]);
    expect(queries.every((command) => command.input.FilterExpression === undefined)).toBe(true);
    expect(await list({ author: 'LOPSIDED', year: 1801 })).toStrictEqual([lopsided[1], lopsided[3]]);
    expect(await list({ author: 'LOPSIDED', year: 2000 })).toStrictEqual([]);
    expect(await list({ author: 'LOPSIDED', year: 1800 }, { after: lopsided[0] })).toStrictEqual([lopsided[2]]);
  });
});

describe('DynamoBookStore: a whole list, streamed (Dynoxide)', () => {
  const BOOKS = 1_400; // about 44 a book shard: three pages each
  let recorded: ReturnType<typeof createRecordingDocumentClient>;
  let store: DynamoBookStore;

  beforeAll(async () => {
    const own = await createTestTables();
    await seedBooks(createPatientDocumentClient(own.endpoint), own.names.books, 1, BOOKS, (id) => ({
      ...newBook(`whole-${id}`),
      id,
    }));
    recorded = createRecordingDocumentClient(own.endpoint);
    store = new DynamoBookStore(recorded.client, own.names.books);
  });

  it('sizes pages so that every shard’s page and the one read ahead fit the budget, whatever the item', () => {
    const longest = toBookItem(
      {
        id: Number.MAX_SAFE_INTEGER,
        title: '\u20ac'.repeat(500),
        author: '\u20ac'.repeat(300),
        isbn: '\u20ac'.repeat(32),
        publicationYear: 9999,
        createdAt: STAMP,
        updatedAt: STAMP,
      },
      Number.MAX_SAFE_INTEGER,
    );
    expect(Buffer.byteLength(JSON.stringify(longest))).toBeLessThanOrEqual(MAX_BOOK_ITEM_BYTES);
    for (const keys of [1, AUTHOR_SHARDS, YEAR_SHARDS, 33, 64]) {
      expect(2 * keys * streamPageItems(keys) * MAX_BOOK_ITEM_BYTES).toBeLessThanOrEqual(LIST_MERGE_BUDGET_BYTES);
      expect(2 * keys * (streamPageItems(keys) + 1) * MAX_BOOK_ITEM_BYTES).toBeGreaterThan(LIST_MERGE_BUDGET_BYTES);
    }
    expect(streamPageItems(100_000)).toBe(1);
  });

  it('lists every book in ascending id order, each key’s next page asked for before the merge needs it', async () => {
    recorded.sent.length = 0;
    let taken = 0;
    const takenWhenSent: number[] = [];
    recorded.client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { ExclusiveStartKey?: { pk?: { S?: string } } };
        const pk = (args.input as { ExpressionAttributeValues?: Record<string, { S?: string }> })
          .ExpressionAttributeValues?.[':pk']?.S;
        if (context.commandName === 'QueryCommand' && pk === 'BOOKS#2' && !input.ExclusiveStartKey)
          takenWhenSent.push(taken);
        return next(args);
      },
      { step: 'initialize', name: 'takenWhenSent' },
    );
    const ids: number[] = [];
    for await (const book of store.iterate({})) {
      ids.push(book.id);
      taken++;
    }
    recorded.client.middlewareStack.remove('takenWhenSent');
    expect(ids).toStrictEqual(Array.from({ length: BOOKS }, (_, i) => i + 1));
    const queries = recorded.sent.filter((command) => command.name === 'QueryCommand');
    expect(queries.every((command) => command.input.ConsistentRead === true)).toBe(true);
    // Only the book's own attributes come back: no keys, index keys or version with every book.
    expect(
      new Set(queries.map((command) => Object.values(command.input.ExpressionAttributeNames).sort().join())),
    ).toStrictEqual(new Set([[...BOOK_FIELDS].sort().join()]));
    expect(
      queries.every((command) => command.input.ProjectionExpression === BOOK_PROJECTION.ProjectionExpression),
    ).toBe(true);
    // One Query per id range (each range's books fit one page): the list's calls are its partitions.
    expect(queries).toHaveLength(Math.floor(BOOKS / BOOK_RANGE_SIZE) + 1);
    // Range 2 (ids 128 to 191) was asked for while the list still took range 1's books: read ahead.
    expect(takenWhenSent).toHaveLength(1);
    expect(takenWhenSent[0]).toBeLessThan(2 * BOOK_RANGE_SIZE);
  });
});

describe('the invariant checker on Dynoxide', () => {
  it('reads the whole table with strongly consistent scans, counts it and reports what is wrong', async () => {
    const own = await createTestTables();
    const writer = new DynamoBookStore(createPatientDocumentClient(own.endpoint), own.names.books);
    for (let i = 0; i < 3; i++) await writer.create(newBook(`checked-${i}`));
    const recorded = createRecordingDocumentClient(own.endpoint);
    expect(await checkBooksTable(recorded.client, own.names.books)).toStrictEqual({
      books: 3,
      claims: 3,
      keyRecords: 0,
      lastId: 10,
      violations: [],
    });
    const scans = recorded.sent.filter((command) => command.name === 'ScanCommand');
    expect(scans.length).toBeGreaterThan(0);
    expect(scans.every((command) => command.input.ConsistentRead === true)).toBe(true);

    await own.documentClient.send(
      new PutCommand({ TableName: own.names.books, Item: { pk: 'ISBN#NOBODYS', sk: 0, bookId: 99 } }),
    );
    expect((await checkBooksTable(recorded.client, own.names.books)).violations).toStrictEqual([
      { kind: 'orphan-claim', message: 'Claim on ISBN NOBODYS points at book 99, which does not hold it' },
    ]);
  });
});

describe('DynamoBookStore: Idempotency-Key records (Dynoxide)', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  let recorded: ReturnType<typeof createRecordingDocumentClient>;
  let store: DynamoBookStore;
  let now = Math.floor(Date.now() / 1000) * 1000;
  const key = (name: string, fingerprint = 'f1', owner = 'demo') => ({ owner, key: name, fingerprint });
  const check = () => checkBooksTable(tables.documentClient, tables.names.books, now);
  const recordOf = async (owner: string, name: string) =>
    (
      await tables.documentClient.send(
        new GetCommand({ TableName: tables.names.books, Key: idempotencyRecordKey(owner, name) }),
      )
    ).Item;

  beforeAll(async () => {
    tables = await createTestTables();
    recorded = createRecordingDocumentClient(tables.endpoint);
    store = new DynamoBookStore(recorded.client, tables.names.books, () => now);
    await store.create(newBook('key-warm-up')); // the id block: reserved once, not part of what follows
  });

  it('a keyed create is one transaction of three items: the book, its claim and the key record', async () => {
    recorded.sent.length = 0;
    const created = await store.create(newBook('key-1'), key('k-1'));
    expect(recorded.sent.map((command) => command.name)).toStrictEqual(['TransactWriteItemsCommand']);
    const items = recorded.sent[0]?.input.TransactItems as Record<string, any>[];
    expect(items).toHaveLength(3);
    expect(items[2]?.Put).toMatchObject({
      ConditionExpression: 'attribute_not_exists(pk) OR #expiresAt <= :now',
      ExpressionAttributeValues: { ':now': now / 1000 },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(await recordOf('demo', 'k-1')).toStrictEqual({
      ...idempotencyRecordKey('demo', 'k-1'),
      bookId: created.book.id,
      fingerprint: 'f1',
      book: created.book,
      version: 1,
      expiresAt: now / 1000 + 86_400,
    });
    expect((await check()).keyRecords).toBe(1);
  });

  it('a repeat with the same fingerprint returns the first book as created, from the cancellation alone', async () => {
    const first = await store.create(newBook('key-2'), key('k-2'));
    await store.update(first.book.id, { title: 'Changed since', updatedAt: 'u' });
    recorded.sent.length = 0;
    expect(await store.create(newBook('key-2'), key('k-2'))).toStrictEqual(first);
    expect(recorded.sent.map((command) => command.name)).toStrictEqual(['TransactWriteItemsCommand']);
    await expect(store.create(newBook('key-2-other'), key('k-2', 'f2'))).rejects.toBeInstanceOf(
      IdempotencyKeyReusedError,
    );
    expect((await store.create(newBook('key-2-alice'), key('k-2', 'f1', 'alice'))).book.id).not.toBe(first.book.id);
    expect((await check()).violations).toStrictEqual([]);
  });

  it('concurrent creates with one key make one book', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => store.create(newBook('key-3'), key('k-3'))));
    expect(new Set(results.map((r) => r.book.id)).size).toBe(1);
    expect((await check()).violations).toStrictEqual([]);
  });

  it('a key expires after 24 hours: the store itself treats the record as gone, before TTL deletes it', async () => {
    const first = await store.create(newBook('key-4'), key('k-4'));
    now += 86_400_000 - 1000;
    expect((await store.create(newBook('key-4'), key('k-4'))).book.id).toBe(first.book.id);
    now += 1000;
    await store.delete(first.book.id); // its key has expired: the record is left for TTL
    const second = await store.create(newBook('key-4'), key('k-4', 'f2'));
    expect(second.book.id).not.toBe(first.book.id);
    expect(await recordOf('demo', 'k-4')).toMatchObject({ bookId: second.book.id, fingerprint: 'f2' });
    expect((await check()).violations).toStrictEqual([]);
  });

  it('deleting a book removes its live key record in the same transaction; moving its ISBN keeps it', async () => {
    const created = await store.create(newBook('key-5'), key('k-5'));
    await store.update(created.book.id, { isbn: 'key-5-moved', updatedAt: 'u' });
    expect((await check()).violations).toStrictEqual([]);
    recorded.sent.length = 0;
    await store.delete(created.book.id);
    const transaction = recorded.sent.find((command) => command.name === 'TransactWriteItemsCommand');
    expect(transaction?.input.TransactItems[2]).toMatchObject({
      Delete: {
        Key: idempotencyRecordKey('demo', 'k-5'),
        ConditionExpression: 'attribute_not_exists(pk) OR bookId = :id',
      },
    });
    expect(await recordOf('demo', 'k-5')).toBeUndefined();
    const again = await store.create(newBook('key-5'), key('k-5', 'f2'));
    expect(again.book.id).not.toBe(created.book.id);
    expect((await check()).violations).toStrictEqual([]);
  });

  it('a keyed create whose ISBN is taken is 409 and leaves no record', async () => {
    await expect(store.create(newBook('key-5'), key('k-6'))).rejects.toBeInstanceOf(DuplicateIsbnError);
    expect(await recordOf('demo', 'k-6')).toBeUndefined();
  });
});

/** A value in DynamoDB's attribute-value form as plain data, undefined when absent. */
function plain(value: Record<string, any> | undefined) {
  return value && unmarshall(value);
}
