import { randomUUID } from 'node:crypto';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTableInput } from '../../local/tables';
import { checkBooksTable } from '../../ops/invariants';
import { runMigrations } from '../../ops/migrations/run';
import { MIGRATION_STEPS } from '../../ops/migrations/steps';
import type { Book, BookFilter, NewBook } from '../../shared/books/types';
import { BOOK_RANGE_SIZE, ID_BLOCKS_KEY, YEAR_SHARDS } from '../../shared/store/books/book-items';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { SCHEMA_VERSION } from '../../shared/store/books/schema-version';
import { BookStoreNotReadyError, SchemaVersionError } from '../../shared/store/errors';
import { BOOKS_TABLE } from '../../shared/store/tables';
import { newBook } from '../support/books';
import { createPatientDocumentClient, createRecordingDocumentClient, createTestTables } from '../support/dynamodb';

/**
 * The range layout on Dynoxide, with every command the store sends recorded from the real
 * client: Dynoxide reads are always strongly consistent and never throttle, so what a real
 * table would do differently is asserted on the commands themselves.
 */
const recordingClient = createRecordingDocumentClient;

let seq = 0;
const book = (extra: Partial<NewBook> = {}): NewBook => newBook(`shard-${++seq}`, extra);

const collect = async (source: AsyncIterable<Book>) => {
  const books: Book[] = [];
  for await (const item of source) books.push(item);
  return books;
};

describe('the range layout of the book store', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  let recorded: ReturnType<typeof recordingClient>;
  let store: DynamoBookStore;
  const books: Book[] = [];

  beforeAll(async () => {
    tables = await createTestTables();
    recorded = recordingClient(tables.endpoint);
    store = new DynamoBookStore(recorded.client, tables.names.books);
    books.push(
      ...(await Promise.all(
        Array.from({ length: 64 }, (_, i) =>
          store
            .create(book({ author: i % 4 === 0 ? 'Ursula K. Le Guin' : `A${i}`, publicationYear: 1969 + (i % 2) }))
            .then((created) => created.book),
        ),
      )),
    );
  });

  it('64 concurrent creates in one container: blocks of 2, 8 and 32, then a range of its own; every item written once', async () => {
    const writes = recorded.sent.filter(
      (command) => command.name !== 'GetItemCommand' && command.name !== 'QueryCommand',
    );
    // Blocks of 2, 8 and 32 by one update each (the first on a new table by the transaction that
    // starts the id-blocks item), the range from 64 by a transaction with range 0's end mark.
    expect(writes.filter((command) => command.name === 'UpdateItemCommand')).toHaveLength(3);
    expect(writes.filter((command) => command.name === 'TransactWriteItemsCommand')).toHaveLength(64 + 2);
    expect(writes.length / 64).toBeLessThanOrEqual(1.1);

    const { Items = [] } = await tables.documentClient.send(new ScanCommand({ TableName: tables.names.books }));
    const perKey = new Map<string, number>();
    // Range 0's end mark (range 1 was opened) is no book.
    expect(Items.filter((item) => item.rangeMark === true).map((item) => [item.pk, item.sk])).toStrictEqual([
      ['BOOKS#0', BOOK_RANGE_SIZE - 0.5],
    ]);
    for (const item of Items.filter((item) => String(item.pk).startsWith('BOOKS#') && item.rangeMark !== true)) {
      perKey.set(item.pk, (perKey.get(item.pk) ?? 0) + 1);
    }
    // Ids 1 to 42 share range 0 with other containers' small blocks; 64 to 85 are in this container's range.
    expect(perKey).toStrictEqual(
      new Map([
        ['BOOKS#0', 42],
        ['BOOKS#1', 22],
      ]),
    );
    expect(new Set(books.map((b) => b.id)).size).toBe(64);
    expect((await checkBooksTable(tables.documentClient, tables.names.books)).violations).toEqual([]);
  });

  it('lists all 64 in ascending id order, whole and as limit=10 pages', async () => {
    const all = await collect(store.iterate({}));
    expect(all.map((b) => b.id)).toEqual(books.map((b) => b.id).sort((a, b) => a - b));
    const walked: number[] = [];
    let after: number | undefined;
    do {
      const page = await collect(store.iterate({}, { limit: 10, ...(after !== undefined && { after }) }));
      expect(page.length).toBeLessThanOrEqual(10);
      walked.push(...page.map((b) => b.id));
      after = page.length === 10 ? page[9]?.id : undefined;
    } while (after !== undefined);
    expect(walked).toEqual(all.map((b) => b.id));
  });

  it.each<[string, BookFilter]>([
    ['author', { author: 'ursula k. le guin' }],
    ['year', { year: 1970 }],
    ['author and year', { author: 'URSULA K. LE GUIN', year: 1969 }],
  ])('merges the %s index shards in id order, and pages through them', async (_, filter) => {
    const expected = books
      .filter((b) => filter.author === undefined || b.author.toLowerCase() === filter.author.toLowerCase())
      .filter((b) => filter.year === undefined || b.publicationYear === filter.year)
      .map((b) => b.id)
      .sort((a, b) => a - b);
    const found = (await collect(store.iterate(filter))).map((b) => b.id);
    expect(found).toEqual(expected);
    const firstPage = (await collect(store.iterate(filter, { limit: 3 }))).map((b) => b.id);
    const rest = (await collect(store.iterate(filter, { after: firstPage[2] as number }))).map((b) => b.id);
    expect([...firstPage, ...rest]).toEqual(expected);
  });

  it('reads strongly consistently where the contract promises it, and spans every key a list needs', async () => {
    recorded.sent.length = 0;
    const [first] = books;
    await store.get(first?.id as number);
    await collect(store.iterate({}));
    const gets = recorded.sent.filter((command) => command.name === 'GetItemCommand');
    const tableQueries = recorded.sent.filter((command) => command.name === 'QueryCommand');
    expect(gets.every((command) => command.input.ConsistentRead === true)).toBe(true);
    // A Query per range up to the highest id reserved (ranges 0 and 1): range 1 has no end mark, so
    // the list ends there without reading the id-blocks item.
    expect(gets).toHaveLength(1);
    expect(tableQueries.every((command) => command.input.ConsistentRead === true && !command.input.IndexName)).toBe(
      true,
    );
    expect(tableQueries.map((command) => command.input.ExpressionAttributeValues[':pk'].S)).toStrictEqual([
      'BOOKS#0',
      'BOOKS#1',
    ]);

    recorded.sent.length = 0;
    await collect(store.iterate({ year: 1969 }));
    expect(recorded.sent.filter((command) => command.name === 'QueryCommand')).toHaveLength(YEAR_SHARDS);
  });

  it('reads and writes a book straight at its own key: no index, no scan', async () => {
    recorded.sent.length = 0;
    const target = books[5] as Book;
    await store.get(target.id);
    await store.update(target.id, { title: 'Changed', updatedAt: 'u' });
    expect(recorded.sent.map((command) => command.name)).toEqual(['GetItemCommand', 'UpdateItemCommand']);
    for (const { input } of recorded.sent) {
      expect(input).toMatchObject({ Key: { pk: `BOOKS#${Math.floor(target.id / BOOK_RANGE_SIZE)}`, sk: target.id } });
    }
    expect(recorded.sent[0]?.input).toMatchObject({ ConsistentRead: true });
  });

  it('releases an ISBN only on the condition that this book holds the claim', async () => {
    recorded.sent.length = 0;
    const target = books[6] as Book;
    await store.update(target.id, { isbn: `${target.isbn}-moved`, updatedAt: 'u' });
    await store.delete(target.id);
    const releases = recorded.sent
      .filter((command) => command.name === 'TransactWriteItemsCommand')
      .flatMap((command) => command.input.TransactItems as Record<string, any>[])
      .filter((item) => item.Delete && String(item.Delete.Key.pk).startsWith('ISBN#'));
    expect(releases).toHaveLength(2);
    for (const release of releases) {
      expect(release.Delete.ConditionExpression).toBe('bookId = :id');
      expect(release.Delete.ExpressionAttributeValues[':id']).toBe(target.id);
    }
  });

  it('never reuses an id: another container takes the next block, and ids stay unique', async () => {
    const other = new DynamoBookStore(createPatientDocumentClient(tables.endpoint), tables.names.books);
    const created = (await other.create(book())).book;
    expect(created.id).toBe(2 * BOOK_RANGE_SIZE);
    const more = (await store.create(book())).book;
    expect(more.id).toBeLessThan(2 * BOOK_RANGE_SIZE);
    const { Item } = await tables.documentClient
      .send(
        new ScanCommand({
          TableName: tables.names.books,
          FilterExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': ID_BLOCKS_KEY.pk },
        }),
      )
      .then((page) => ({ Item: page.Items?.[0] }));
    expect(Item?.highMark).toBe(2 * BOOK_RANGE_SIZE + 1);
  });
});

describe('the books table’s schemaVersion, checked once per container', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  beforeAll(async () => {
    tables = await createTestTables();
  });
  const idBlocks = async (table: string) =>
    (await tables.documentClient.send(new GetCommand({ TableName: table, Key: ID_BLOCKS_KEY }))).Item;
  const bareTable = async () => {
    const name = `schema-${randomUUID().slice(0, 8)}`;
    await tables.client.send(new CreateTableCommand(createTableInput(name, BOOKS_TABLE)));
    return name;
  };

  it('npm start’s set-up stamps a new table with this version, through the migrations', async () => {
    expect(await idBlocks(tables.names.books)).toStrictEqual({ ...ID_BLOCKS_KEY, schemaVersion: SCHEMA_VERSION });
  });

  it('a table with no id-blocks item (as the stack creates it) is served, and stamped by its first create only', async () => {
    const name = await bareTable();
    const recorded = recordingClient(tables.endpoint);
    const store = new DynamoBookStore(recorded.client, name);
    expect(await store.get(1)).toBeUndefined();
    expect(await collect(store.iterate({}))).toEqual([]);
    // A read-only function's role may not write: reads check, and never stamp.
    expect(recorded.sent.map((command) => command.name)).toStrictEqual([
      'GetItemCommand',
      'GetItemCommand',
      'QueryCommand',
    ]);
    expect(await idBlocks(name)).toBeUndefined();
    const created = await store.create(book());
    expect(created.book.id).toBe(1);
    expect((await idBlocks(name))?.schemaVersion).toBe(SCHEMA_VERSION);
    expect((await checkBooksTable(tables.documentClient, name)).violations).toEqual([]);
  });

  it('a table behind is refused before anything is read or written, naming the command; migrated, it is served', async () => {
    const name = await bareTable();
    await tables.documentClient.send(new PutCommand({ TableName: name, Item: { ...ID_BLOCKS_KEY, highMark: 2 } }));
    const recorded = recordingClient(tables.endpoint);
    const store = new DynamoBookStore(recorded.client, name);
    for (const attempt of [() => store.get(1), () => store.create(book()), () => collect(store.iterate({}))]) {
      const refused = await attempt().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(BookStoreNotReadyError);
      expect((refused as Error).cause).toStrictEqual(
        new SchemaVersionError(name, 0, SCHEMA_VERSION, 'npm run data:migrate'),
      );
    }
    // Each attempt read the id-blocks item and nothing else: a failed check is made again, never remembered.
    expect(recorded.sent.map((command) => command.name)).toStrictEqual(Array(3).fill('GetItemCommand'));
    expect((await checkBooksTable(tables.documentClient, name)).violations.map((each) => each.kind)).toEqual([
      'schema-behind',
    ]);
    expect(await runMigrations(tables.documentClient, name)).toStrictEqual({
      from: 0,
      to: 1,
      due: ['baseline'],
      ran: ['baseline'],
      skipped: [],
    });
    expect(await runMigrations(tables.documentClient, name)).toStrictEqual({
      from: 1,
      to: 1,
      due: [],
      ran: [],
      skipped: [],
    });
    expect((await store.create(book())).book.id).toBe(3);
    recorded.sent.length = 0;
    await store.get(3);
    expect(recorded.sent.map((command) => command.name)).toStrictEqual(['GetItemCommand']); // checked once
  });

  it('a table ahead of this version is served: a migration only adds what this version can ignore', async () => {
    const name = await bareTable();
    await tables.documentClient.send(
      new PutCommand({ TableName: name, Item: { ...ID_BLOCKS_KEY, schemaVersion: SCHEMA_VERSION + 1 } }),
    );
    expect((await new DynamoBookStore(tables.documentClient, name).create(book())).book.id).toBe(1);
    expect(await runMigrations(tables.documentClient, name)).toStrictEqual({
      from: 2,
      to: 2,
      due: [],
      ran: [],
      skipped: [],
    });
  });

  it('the last migration step is the version the store reads', () => {
    expect(MIGRATION_STEPS.map((step) => step.version)).toStrictEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
    );
  });
});
