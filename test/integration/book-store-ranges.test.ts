import { randomUUID } from 'node:crypto';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkBooksTable } from '../../admin/invariants';
import { ensureTables } from '../../local/tables';
import type { Book, BookFilter, NewBook } from '../../shared/books/types';
import { BOOK_RANGE_SIZE, ID_BLOCKS_KEY, YEAR_SHARDS } from '../../shared/store/books/book-items';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { assertBooksTableLayout, indexesToAdd } from '../../shared/store/books/table-layout';
import { TableLayoutError } from '../../shared/store/errors';
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
    // starts the counter), the range from 64 by a transaction with range 0's end mark.
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
    // the list ends there without reading the counter.
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

describe('a books table in the single-partition layout', () => {
  it('is refused by npm start’s table set-up and by the invariant checker, with a message saying what to do', async () => {
    const tables = await createTestTables();
    const name = `old-${Date.now()}`;
    const key = (name: string, type: 'S' | 'N') => ({ AttributeName: name, AttributeType: type });
    await tables.client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [key('pk', 'S'), key('sk', 'N'), key('authorKey', 'S'), key('publicationYear', 'N')],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          ['byAuthor', 'authorKey'],
          ['byYear', 'publicationYear'],
        ].map(([indexName, attribute]) => ({
          IndexName: indexName,
          KeySchema: [
            { AttributeName: attribute, KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
    await expect(ensureTables(tables.client, { books: name, auth: tables.names.auth })).rejects.toThrow(
      TableLayoutError,
    );
    await expect(checkBooksTable(tables.documentClient, name)).rejects.toThrow(
      /older single-partition layout.*remove the data folder/,
    );
    await expect(ensureTables(tables.client, tables.names)).resolves.toBeUndefined();
  });
});

describe('the books table layout check', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  const attribute = (name: string) => ({ AttributeName: name, AttributeType: name === 'sk' ? 'N' : 'S' }) as const;
  /** A table keyed [hash, range] with indexes named [name, hash, range?]. */
  const createTable = async (keys: string[], indexes: [string, string, string?][]) => {
    const name = `layout-${randomUUID().slice(0, 8)}`;
    const keySchema = ([hash, range]: (string | undefined)[]) => [
      { AttributeName: hash, KeyType: 'HASH' as const },
      ...(range ? [{ AttributeName: range, KeyType: 'RANGE' as const }] : []),
    ];
    const names = new Set([...keys, ...indexes.flatMap(([, hash, range]) => (range ? [hash, range] : [hash]))]);
    await tables.client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...names].map(attribute),
        KeySchema: keySchema(keys),
        ...(indexes.length > 0 && {
          GlobalSecondaryIndexes: indexes.map(([indexName, hash, range]) => ({
            IndexName: indexName,
            KeySchema: keySchema([hash, range]),
            Projection: { ProjectionType: 'ALL' as const },
          })),
        }),
      }),
    );
    return name;
  };

  beforeAll(async () => {
    tables = await createTestTables();
  });

  it('accepts the table npm start and the stack create, whatever order DynamoDB lists its indexes in', async () => {
    await expect(assertBooksTableLayout(tables.documentClient, tables.names.books)).resolves.toBeUndefined();
    const reversed = await createTable(
      ['pk', 'sk'],
      [
        ['byAuthorYear', 'authorShard', 'yearId'],
        ['byYearShard', 'yearShard', 'sk'],
        ['byAuthorShard', 'authorShard', 'sk'],
      ],
    );
    await expect(assertBooksTableLayout(tables.documentClient, reversed)).resolves.toBeUndefined();
  });

  it('refuses a table of the version before (no author-and-year index), naming the deployment and the command', async () => {
    const name = await createTable(
      ['pk', 'sk'],
      [
        ['byAuthorShard', 'authorShard', 'sk'],
        ['byYearShard', 'yearShard', 'sk'],
      ],
    );
    expect((await indexesToAdd(tables.documentClient, name)).map((index) => index.indexName)).toStrictEqual([
      'byAuthorYear',
    ]);
    await expect(assertBooksTableLayout(tables.documentClient, name)).rejects.toThrow(
      new TableLayoutError(
        `Table ${name} lacks the index byAuthorYear that this version reads: deploy this version of the stack ` +
          'first (cdk deploy adds it; locally, npm start does), then run npm run data:migrate-layout to give ' +
          'existing books its keys.',
      ),
    );
    // Another table missing it is no table of the version before: nothing to add, the general refusal.
    const other = await createTable(['pk', 'sk'], [['byAuthorShard', 'authorShard', 'sk']]);
    expect(await indexesToAdd(tables.documentClient, other)).toStrictEqual([]);
  });

  it('accepts the indexes in either order in DynamoDB’s answer, which documents no order', async () => {
    // Dynoxide lists them in one fixed order; the real answer is turned around here to see the other.
    const turned = createPatientDocumentClient(tables.endpoint);
    const listed: string[][] = [];
    turned.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        const table = (result.output as { Table?: { GlobalSecondaryIndexes?: { IndexName?: string }[] } }).Table;
        table?.GlobalSecondaryIndexes?.reverse();
        listed.push((table?.GlobalSecondaryIndexes ?? []).map((index) => String(index.IndexName)));
        return result;
      },
      { step: 'initialize', name: 'turnIndexesAround' },
    );
    await expect(assertBooksTableLayout(tables.documentClient, tables.names.books)).resolves.toBeUndefined();
    await expect(assertBooksTableLayout(turned, tables.names.books)).resolves.toBeUndefined();
    // Turned around, the answer lists the indexes against the order they are declared in.
    expect(listed).toStrictEqual([[...BOOKS_TABLE.indexes.map((index) => index.indexName)].reverse()]);
  });

  it('refuses a table without indexes, saying what it has and what it needs, and what to do', async () => {
    const name = await createTable(['pk', 'sk'], []);
    await expect(assertBooksTableLayout(tables.documentClient, name)).rejects.toThrow(
      new TableLayoutError(
        `Table ${name} is not laid out as this version of the service reads it (it has no indexes; ` +
          'expected byAuthorShard, byYearShard, and byAuthorYear). It may hold books in the older single-partition layout: ' +
          'use a new table (locally, stop npm start and remove the data folder, .data by default) and load the books again.',
      ),
    );
  });

  it('names each index it found with its keys', async () => {
    const name = await createTable(
      ['pk', 'sk'],
      [
        ['byAuthorShard', 'authorShard', 'sk'],
        ['byYear', 'yearShard'],
      ],
    );
    await expect(assertBooksTableLayout(tables.documentClient, name)).rejects.toThrow(
      '(it has byAuthorShard(authorShard,sk), byYear(yearShard,); expected byAuthorShard, byYearShard, and byAuthorYear)',
    );
  });

  it.each<[string, string[], [string, string, string?][]]>([
    [
      'the table’s sort key is missing',
      ['pk'],
      [
        ['byAuthorShard', 'authorShard', 'sk'],
        ['byYearShard', 'yearShard', 'sk'],
      ],
    ],
    [
      'the table’s keys are named otherwise',
      ['id', 'sk'],
      [
        ['byAuthorShard', 'authorShard', 'sk'],
        ['byYearShard', 'yearShard', 'sk'],
      ],
    ],
    [
      'an index’s sort key is another',
      ['pk', 'sk'],
      [
        ['byAuthorShard', 'authorShard', 'sk'],
        ['byYearShard', 'yearShard', 'pk'],
      ],
    ],
    [
      'an index’s keys are swapped',
      ['pk', 'sk'],
      [
        ['byAuthorShard', 'authorShard', 'sk'],
        ['byYearShard', 'sk', 'yearShard'],
      ],
    ],
    ['an index is missing', ['pk', 'sk'], [['byAuthorShard', 'authorShard', 'sk']]],
  ])('refuses a table where %s', async (_, keys, indexes) => {
    const name = await createTable(keys, indexes);
    await expect(assertBooksTableLayout(tables.documentClient, name)).rejects.toBeInstanceOf(TableLayoutError);
  });
});
