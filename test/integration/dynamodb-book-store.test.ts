import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkBooksTable } from '../../admin/invariants';
import { BookNotFoundError, DuplicateIsbnError } from '../../shared/books/errors';
import { MAX_BOOK_ID } from '../../shared/books/limits';
import type { ListOptions } from '../../shared/books/ports';
import type { BookFilter } from '../../shared/books/types';
import { ID_BLOCKS_KEY, INDEX_SHARDS } from '../../shared/store/book-items';
import { DynamoBookStore } from '../../shared/store/dynamodb-book-store';
import { IdSpaceExhaustedError, StoreInvariantError } from '../../shared/store/errors';
import { IdBlockAllocator } from '../../shared/store/id-blocks';
import { newBook } from '../support/books';
import { createPatientDocumentClient, createRecordingDocumentClient, createTestTables } from '../support/dynamodb';

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
    const first = await store.create(newBook('int-1'));
    const second = await store.create(newBook('int-2'));
    expect(second.id).toBeGreaterThan(first.id);
    expect(await store.get(first.id)).toEqual(first);
    expect(await store.get(999_999)).toBeUndefined();
  });

  it('claims the normalised ISBN in the same transaction as the book', async () => {
    const created = await store.create(newBook('int-3-x'));
    expect(await isbnClaim('INT3X')).toMatchObject({ bookId: created.id });
    await expect(store.create(newBook('INT 3 X'))).rejects.toBeInstanceOf(DuplicateIsbnError);
  });

  it('never reuses an id, even after a failed create', async () => {
    const before = await store.create(newBook('int-4'));
    await expect(store.create(newBook('int-4'))).rejects.toBeInstanceOf(DuplicateIsbnError);
    const after = await store.create(newBook('int-5'));
    expect(after.id).toBe(before.id + 2);
  });

  it('moves the ISBN claim when an update changes the ISBN, and refuses a taken one', async () => {
    const a = await store.create(newBook('int-6'));
    const b = await store.create(newBook('int-7'));
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
    const created = await store.create(newBook('int-9'));
    await store.delete(created.id);
    expect(await store.get(created.id)).toBeUndefined();
    expect(await isbnClaim('INT9')).toBeUndefined();
    await expect(store.delete(created.id)).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(store.update(created.id, (c) => c)).rejects.toBeInstanceOf(BookNotFoundError);
    expect((await store.create(newBook('int-9'))).isbn).toBe('int-9');
  });

  it('applies concurrent updates to one book one after another, losing none', async () => {
    const created = await store.create(newBook('int-10', { publicationYear: 1000 }));
    await Promise.all(
      Array.from({ length: 8 }, () =>
        store.update(created.id, (c) => ({ ...c, publicationYear: c.publicationYear + 1 })),
      ),
    );
    expect((await store.get(created.id))?.publicationYear).toBe(1008);
  });

  it('lets exactly one of many concurrent creates take an ISBN', async () => {
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => store.create(newBook('int-race'))));
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
    await expect(store.create(newBook('exhausted'))).rejects.toBeInstanceOf(IdSpaceExhaustedError);
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

describe('DynamoBookStore: what it sends, and the invariants it reports (DynamoDB Local)', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  let recorded: ReturnType<typeof createRecordingDocumentClient>;
  let store: DynamoBookStore;
  const queries = () => recorded.sent.filter((command) => command.name === 'QueryCommand');
  const list = async (filter: BookFilter, options?: ListOptions) => {
    const ids: number[] = [];
    for await (const found of store.iterate(filter, options)) ids.push(found.id);
    return ids;
  };
  const put = (Item: Record<string, unknown>) =>
    tables.documentClient.send(new PutCommand({ TableName: tables.names.books, Item }));
  const remove = (Key: Record<string, unknown>) =>
    tables.documentClient.send(new DeleteCommand({ TableName: tables.names.books, Key }));

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
    expect(new Set(queries().map((command) => command.input.Limit))).toStrictEqual(new Set([2])); // ⌈3/32⌉ + 1
    recorded.sent.length = 0;
    await list({ author: 'edge author' }, { limit: 100 });
    expect(new Set(queries().map((command) => command.input.Limit))).toStrictEqual(new Set([8])); // ⌈100/16⌉ + 1
    recorded.sent.length = 0;
    await list({ year: 1990 }, { limit: 1 });
    expect(new Set(queries().map((command) => command.input.Limit))).toStrictEqual(new Set([1]));
    recorded.sent.length = 0;
    await list({});
    expect(queries().every((command) => !('Limit' in command.input))).toBe(true);
  });

  it('resumes every key after the cursor’s id, on the table and on each index', async () => {
    recorded.sent.length = 0;
    expect(await list({}, { after: 2 })).toStrictEqual([3, 4, 5, 6]);
    expect(queries().map((command) => command.input.ExclusiveStartKey)).toContainEqual({ pk: 'BOOK#7', sk: 2 });
    recorded.sent.length = 0;
    expect(await list({ author: 'EDGE AUTHOR' }, { after: 4 })).toStrictEqual([5, 6]);
    expect(queries().map((command) => command.input.ExclusiveStartKey)).toContainEqual({
      pk: 'BOOK#4',
      sk: 4,
      authorShard: '15#edge author',
    });
    recorded.sent.length = 0;
    expect(await list({ year: 1990 }, { after: 5 })).toStrictEqual([6]);
    expect(queries().map((command) => command.input.ExclusiveStartKey)).toContainEqual({
      pk: 'BOOK#5',
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
    expect(queries()).toHaveLength(16);
  });

  it('a create whose id is taken by an item written behind its back is a StoreInvariantError, not a duplicate', async () => {
    const own = await createTestTables();
    const client = createPatientDocumentClient(own.endpoint);
    await client.send(new PutCommand({ TableName: own.names.books, Item: { pk: 'BOOK#1', sk: 1, id: 1 } }));
    const fresh = new DynamoBookStore(client, own.names.books);
    await expect(fresh.create(newBook('edge-taken-id'))).rejects.toThrow(
      new StoreInvariantError('Book 1 already exists though its id block issued it'),
    );
    expect((await fresh.create(newBook('edge-taken-id'))).id).toBe(2);
  });

  it('a delete whose ISBN claim is gone is a StoreInvariantError, and deletes nothing', async () => {
    const target = await store.create(newBook('edge-claim-gone'));
    await remove({ pk: 'ISBN#EDGECLAIMGONE', sk: 0 });
    await expect(store.delete(target.id)).rejects.toThrow(
      new StoreInvariantError(`ISBN claim of book ${target.id} is missing or foreign`),
    );
    expect(await store.get(target.id)).toEqual(target);
  });

  it('an ISBN change whose old claim belongs to another book is a StoreInvariantError, and changes nothing', async () => {
    const target = await store.create(newBook('edge-foreign'));
    await put({ pk: 'ISBN#EDGEFOREIGN', sk: 0, bookId: 1 });
    await expect(store.update(target.id, (current) => ({ ...current, isbn: 'edge-foreign-2' }))).rejects.toThrow(
      new StoreInvariantError(`ISBN claim of book ${target.id} is missing or foreign`),
    );
    expect(await store.get(target.id)).toEqual(target);
  });

  it('an update that keeps the ISBN writes the book alone, conditioned on the version it read', async () => {
    const target = await store.create(newBook('edge-keep'));
    recorded.sent.length = 0;
    const updated = await store.update(target.id, (current) => ({ ...current, title: 'Kept ISBN' }));
    expect(updated).toEqual({ ...target, title: 'Kept ISBN' });
    expect(recorded.sent.map((command) => command.name)).toStrictEqual(['GetItemCommand', 'PutItemCommand']);
    expect(recorded.sent[1]?.input).toMatchObject({
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': 1 },
      Item: { version: 2, title: 'Kept ISBN' },
    });
  });
});

describe('DynamoBookStore when another writer gets in between its read and its write (DynamoDB Local)', () => {
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
    const { store, transactions } = interrupted(() => other.update(target.id, (c) => ({ ...c, title: 'newer' })));
    await store.delete(target.id);
    expect(await other.get(target.id)).toBeUndefined();
    expect(transactions()).toHaveLength(2);
  });

  it('an update that moves the ISBN runs again on the newer version, keeping the other writer’s change', async () => {
    const other = new DynamoBookStore(createPatientDocumentClient(tables.endpoint), tables.names.books);
    const target = await other.create(newBook('race-move'));
    const { store, transactions } = interrupted(() => other.update(target.id, (c) => ({ ...c, title: 'newer' })));
    const moved = await store.update(target.id, (current) => ({ ...current, isbn: 'race-moved' }));
    expect(moved).toMatchObject({ title: 'newer', isbn: 'race-moved' });
    expect(await other.get(target.id)).toEqual(moved);
    expect(transactions()).toHaveLength(2);
  });
});

describe('DynamoBookStore: one key holding more than its share of a page (DynamoDB Local)', () => {
  let recorded: ReturnType<typeof createRecordingDocumentClient>;
  let store: DynamoBookStore;
  /** The ids of the books by "Lopsided": the four of 64 whose id falls in index shard 0. */
  let lopsided: number[];

  beforeAll(async () => {
    const own = await createTestTables();
    recorded = createRecordingDocumentClient(own.endpoint);
    store = new DynamoBookStore(recorded.client, own.names.books);
    const created = await Promise.all(Array.from({ length: 64 }, (_, i) => store.create(newBook(`lop-${i}`))));
    lopsided = created.map((each) => each.id).filter((id) => id % INDEX_SHARDS === 0);
    for (const [n, id] of lopsided.entries()) {
      await store.update(id, (current) => ({ ...current, author: 'Lopsided', publicationYear: n % 2 ? 1801 : 1800 }));
    }
  });
  const list = async (filter: BookFilter, options?: ListOptions) => {
    const ids: number[] = [];
    for await (const found of store.iterate(filter, options)) ids.push(found.id);
    return ids;
  };

  it('reads that key’s next pages when the merge needs more of its books', async () => {
    expect(lopsided).toHaveLength(4);
    recorded.sent.length = 0;
    expect(await list({ author: 'lopsided' }, { limit: 4 })).toStrictEqual(lopsided);
    const shardZero = recorded.sent.filter(
      (command) =>
        command.name === 'QueryCommand' && command.input.ExpressionAttributeValues[':author'] === '0#lopsided',
    );
    expect(shardZero.map((command) => command.input.Limit)).toStrictEqual([2, 2]); // ⌈4/16⌉ + 1 each
    expect(shardZero[1]?.input.ExclusiveStartKey).toMatchObject({ sk: lopsided[1] });
  });

  it('an author and a year together: the author’s index, filtered by year', async () => {
    expect(await list({ author: 'LOPSIDED', year: 1800 })).toStrictEqual([lopsided[0], lopsided[2]]);
    expect(await list({ author: 'LOPSIDED', year: 1801 })).toStrictEqual([lopsided[1], lopsided[3]]);
    expect(await list({ author: 'LOPSIDED', year: 2000 })).toStrictEqual([]);
  });
});

describe('the invariant checker on DynamoDB Local', () => {
  it('reads the whole table with strongly consistent scans, counts it and reports what is wrong', async () => {
    const own = await createTestTables();
    const writer = new DynamoBookStore(createPatientDocumentClient(own.endpoint), own.names.books);
    for (let i = 0; i < 3; i++) await writer.create(newBook(`checked-${i}`));
    const recorded = createRecordingDocumentClient(own.endpoint);
    expect(await checkBooksTable(recorded.client, own.names.books)).toStrictEqual({
      books: 3,
      claims: 3,
      lastId: 100,
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
