import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { checkBooksTable } from '../../admin/invariants';
import { migrateBooksTable } from '../../admin/migrate-layout';
import { createTableInput, ensureTables } from '../../local/tables';
import { normalizeAuthor } from '../../shared/books/normalize';
import type { Book, BookFilter } from '../../shared/books/types';
import { completeAuthorKeys } from '../../shared/store/books/author-keys';
import { bookKey, bookRangeOf, ID_BLOCKS_KEY, isbnClaimKey, toBookItem } from '../../shared/store/books/book-items';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { putRangeMarks } from '../../shared/store/books/range-marks';
import { assertBooksTableLayout } from '../../shared/store/books/table-layout';
import { BOOKS_TABLE } from '../../shared/store/tables';
import { newBook, STAMP } from '../support/books';
import { createPatientDocumentClient, createRecordingDocumentClient, createTestTables } from '../support/dynamodb';

/**
 * A range-layout table written by the version before the author-and-year index: every book's author
 * key spread over sixteen shards (`<id mod 16>#<author>`), no `yearId`, no `authorIndex` mark on the
 * id-blocks item. Written out here: the test states what those tables hold, not what the code reads.
 */
const AUTHORS = ['Ada Lovelace', 'Grace Hopper', 'Edsger Dijkstra'];
const YEARS = [1950, 1960];
type Client = ReturnType<typeof createPatientDocumentClient>;

const olderBook = (id: number): Book => ({
  ...newBook(`author-keys-${id}`, {
    author: AUTHORS[id % AUTHORS.length] as string,
    publicationYear: YEARS[Math.floor(id / 3) % YEARS.length] as number,
  }),
  id,
  createdAt: STAMP,
  updatedAt: STAMP,
});

const olderItem = (book: Book) => {
  const { yearId: _, ...item } = toBookItem(book, 1);
  return { ...item, authorShard: `${book.id % 16}#${normalizeAuthor(book.author)}` };
};

const writeAll = async (client: Client, table: string, items: Record<string, unknown>[]) => {
  for (let start = 0; start < items.length; start += 25) {
    let requests = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    while (requests.length > 0) {
      const { UnprocessedItems } = await client.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  }
};

/** Books 1…count as the version before left them, with their claims, end marks and id-blocks item. */
const writeOlderBooks = async (client: Client, table: string, count: number) => {
  const books = Array.from({ length: count }, (_, i) => olderBook(i + 1));
  await writeAll(
    client,
    table,
    books.flatMap((book) => [olderItem(book), { ...isbnClaimKey(book.isbn), bookId: book.id }]),
  );
  await putRangeMarks(client, table, 0, bookRangeOf(count));
  await client.send(
    new UpdateCommand({
      TableName: table,
      Key: ID_BLOCKS_KEY,
      UpdateExpression: 'SET highMark = :count REMOVE authorIndex',
      ExpressionAttributeValues: { ':count': count },
    }),
  );
  return books;
};

const list = async (store: DynamoBookStore, filter: BookFilter) => {
  const ids: number[] = [];
  for await (const book of store.iterate(filter)) ids.push(book.id);
  return ids;
};

/** What every filter should list, from the books as the test last wrote them. */
const expectedIds = (books: Map<number, Book>, { author, year }: BookFilter) =>
  [...books.values()]
    .filter(
      (book) =>
        (author === undefined || normalizeAuthor(book.author) === normalizeAuthor(author)) &&
        (year === undefined || book.publicationYear === year),
    )
    .map((book) => book.id)
    .sort((a, b) => a - b);

describe('npm run data:migrate-layout gives a table from before the author-and-year index its keys', () => {
  it('while the service creates, changes, deletes and lists by author: no book missed, two Queries a page after', async () => {
    const tables = await createTestTables();
    const client = createPatientDocumentClient(tables.endpoint);
    const table = tables.names.books;
    const books = new Map((await writeOlderBooks(client, table, 1_500)).map((book) => [book.id, book]));

    const before = await checkBooksTable(client, table);
    expect(before.violations.map((violation) => violation.kind)).toStrictEqual(['older-author-keys']);
    expect(before.violations[0]?.message).toBe(
      '1500 books (the first: 1) still have the author keys of the version before (run npm run data:migrate-layout)',
    );

    const service = new DynamoBookStore(client, table);
    const filters: BookFilter[] = [
      { author: 'ada lovelace' },
      { author: 'GRACE HOPPER', year: 1960 },
      { author: 'Edsger Dijkstra', year: 1950 },
      { year: 1950 },
    ];
    for (const filter of filters) expect(await list(service, filter)).toStrictEqual(expectedIds(books, filter));

    // When the migration moved each book's keys (its UpdateItem's request to response), in ms.
    const moves = new Map<number, { from: number; to: number }>();
    const migration = createPatientDocumentClient(tables.endpoint);
    migration.middlewareStack.add(
      (next, context) => async (args) => {
        const key = (args.input as { Key?: { pk?: string | { S?: string }; sk?: number | { N?: string } } }).Key;
        const pk = typeof key?.pk === 'string' ? key.pk : key?.pk?.S;
        const from = performance.now();
        const result = await next(args);
        if (/^Update(Item)?Command$/.test(String(context.commandName)) && pk?.startsWith('BOOKS#'))
          moves.set(Number(typeof key?.sk === 'object' ? key.sk.N : key?.sk), { from, to: performance.now() });
        return result;
      },
      { step: 'initialize', name: 'timeTheMoves' },
    );

    let migrating = true;
    /**
     * A filtered list is never wrong, and misses a book only while the migration moves that book's
     * author key from one index key to another (as while the service changes a book's author: index
     * reads follow the moves, on AWS eventually): a book moved after the list read its new key and
     * before it read its old one. Anything else is a mismatch.
     */
    const mismatches: string[] = [];
    let movedWhileListed = 0;
    const traffic = (async () => {
      for (let round = 0; migrating || round < 12; round++) {
        const id = 1 + ((round * 7919) % 1_500);
        const book = books.get(id);
        if (round % 4 === 0) {
          const created = await service.create(
            newBook(`during-${round}`, { author: 'Ada Lovelace', publicationYear: 1960 }),
          );
          books.set(created.book.id, created.book);
        } else if (book && round % 4 === 1) {
          // The author alone changes: the service writes the two-shard author key, the year key stays.
          books.set(id, (await service.update(id, { author: 'Grace Hopper', updatedAt: STAMP })).book);
        } else if (book && round % 4 === 2) {
          // The year alone changes: the service writes the author-and-year key from the year and the id.
          books.set(id, (await service.update(id, { publicationYear: 1950, updatedAt: STAMP })).book);
        } else if (book) {
          await service.delete(id);
          books.delete(id);
        }
        // A container that has read nothing, and the one that has been answering all along.
        for (const reader of [new DynamoBookStore(client, table), service]) {
          const filter = filters[round % filters.length] as BookFilter;
          const from = performance.now();
          const listed = await list(reader, filter);
          const to = performance.now();
          const expected = expectedIds(books, filter);
          const extra = listed.filter((id) => !expected.includes(id));
          const missed = expected.filter((id) => !listed.includes(id));
          const movedMeanwhile = (id: number) => {
            const move = moves.get(id);
            return move !== undefined && move.from <= to && move.to >= from;
          };
          if (extra.length > 0 || !missed.every(movedMeanwhile) || new Set(listed).size !== listed.length)
            mismatches.push(`round ${round}: ${JSON.stringify(filter)} extra ${extra} missed ${missed}`);
          movedWhileListed += missed.length;
        }
      }
    })();
    const progress: string[] = [];
    const report = await migrateBooksTable(migration, table, { graceMs: 0, log: (line) => progress.push(line) });
    migrating = false;
    await traffic;

    expect(mismatches).toStrictEqual([]);
    console.log(`books missed by a list while the migration moved them: ${movedWhileListed}`);
    expect(report.authorKeys).toBeGreaterThan(1_000); // the service rewrote the books it changed meanwhile
    expect(report.authorKeys).toBeLessThanOrEqual(1_500);
    expect(progress.some((line) => /^author keys: ranges 0–\d+ of \d+ done \(\d+ books read/.test(line))).toBe(true);
    expect((await checkBooksTable(client, table)).violations).toStrictEqual([]);

    // After: a container that has read nothing reads the mark once, then every filtered page is two Queries.
    const recorded = createRecordingDocumentClient(tables.endpoint);
    const fresh = new DynamoBookStore(recorded.client, table);
    for (const filter of filters) expect(await list(fresh, filter)).toStrictEqual(expectedIds(books, filter));
    recorded.sent.length = 0;
    for (const filter of filters.slice(0, 3)) {
      const page: number[] = [];
      for await (const book of fresh.iterate(filter, { limit: 21 })) page.push(book.id);
      expect(page).toStrictEqual(expectedIds(books, filter).slice(0, 21));
    }
    expect(recorded.sent.map((command) => command.name)).toStrictEqual(Array(6).fill('QueryCommand'));

    // Again (as after a rollback wrote older keys to one book): only that book is rewritten.
    const [someId] = [...books.keys()];
    await client.send(
      new UpdateCommand({ TableName: table, Key: bookKey(someId as number), UpdateExpression: 'REMOVE yearId' }),
    );
    expect((await checkBooksTable(client, table)).violations.map((violation) => violation.kind)).toStrictEqual([
      'stale-index-key',
    ]);
    expect((await migrateBooksTable(client, table, { graceMs: 0 })).authorKeys).toBe(1);
    expect((await checkBooksTable(client, table)).violations).toStrictEqual([]);
  }, 600_000);

  it('resumes after an interruption where it stopped, rewriting each book once', async () => {
    const tables = await createTestTables();
    const client = createPatientDocumentClient(tables.endpoint);
    const table = tables.names.books;
    await writeOlderBooks(client, table, 1_280); // 20 ranges

    // The first run stops (its connection lost) at the 700th book it rewrites.
    const failing = createPatientDocumentClient(tables.endpoint);
    let rewrites = 0;
    failing.middlewareStack.add(
      (next, context) => async (args) => {
        const key = (args.input as { Key?: { pk?: string | { S?: string } } }).Key?.pk;
        const pk = typeof key === 'string' ? key : key?.S;
        if (/^Update(Item)?Command$/.test(String(context.commandName)) && pk?.startsWith('BOOKS#') && ++rewrites >= 700)
          throw new Error('connection lost');
        return next(args);
      },
      { step: 'initialize', name: 'loseTheConnection' },
    );
    await expect(completeAuthorKeys(failing, table, { rangesPerStep: 4 })).rejects.toThrow('connection lost');
    const service = new DynamoBookStore(client, table);
    expect(await list(service, { author: 'Ada Lovelace', year: 1950 })).toStrictEqual(
      expectedIds(new Map(Array.from({ length: 1_280 }, (_, i) => [i + 1, olderBook(i + 1)])), {
        author: 'Ada Lovelace',
        year: 1950,
      }),
    );

    const progress: string[] = [];
    const resumed = await completeAuthorKeys(client, table, { rangesPerStep: 4, log: (line) => progress.push(line) });
    expect(progress[0]).toMatch(/^author keys: resuming at range (4|8)$/);
    expect(resumed.resumedAt).toBeGreaterThan(0);
    // Books of the ranges done before the stop are read again from the resume point only, and rewritten once in all.
    expect(resumed.read).toBeLessThan(1_280);
    expect(resumed.rewritten + 699).toBe(1_280);
    expect((await checkBooksTable(client, table)).violations).toStrictEqual([]);
  }, 300_000);

  it('npm start adds the index to a table from the version before and gives its books their keys', async () => {
    const tables = await createTestTables();
    const client = createPatientDocumentClient(tables.endpoint);
    const table = `${tables.names.books}-before`;
    const input = createTableInput(table, { ...BOOKS_TABLE, indexes: BOOKS_TABLE.indexes.slice(0, 2) });
    await tables.client.send(new CreateTableCommand(input));
    await client.send(
      new UpdateCommand({
        TableName: table,
        Key: ID_BLOCKS_KEY,
        UpdateExpression: 'SET #l = :r',
        ExpressionAttributeNames: { '#l': 'layout' },
        ExpressionAttributeValues: { ':r': 'ranges' },
      }),
    );
    const books = new Map((await writeOlderBooks(client, table, 200)).map((book) => [book.id, book]));
    await expect(assertBooksTableLayout(client, table)).rejects.toThrow(/lacks the index byAuthorYear/);

    const lines: string[] = [];
    await ensureTables(tables.client, { books: table, auth: tables.names.auth }, (line) => lines.push(line));
    expect(lines).toStrictEqual([
      `Adding the index byAuthorYear to ${table} (a table from an earlier version)`,
      'Gave 200 books their keys in the new index',
    ]);
    await expect(assertBooksTableLayout(client, table)).resolves.toBeUndefined();
    expect((await checkBooksTable(client, table)).violations).toStrictEqual([]);
    const filter = { author: 'edsger dijkstra', year: 1960 };
    expect(await list(new DynamoBookStore(client, table), filter)).toStrictEqual(expectedIds(books, filter));
  }, 120_000);

  it('waits for DynamoDB to build the index before it marks the table, saying so', async () => {
    const tables = await createTestTables();
    const client = createPatientDocumentClient(tables.endpoint);
    await writeOlderBooks(client, tables.names.books, 100);
    // DynamoDB's answer while it builds an index added to a table with items (Dynoxide builds at once).
    let describes = 0;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'DescribeTableCommand' && ++describes <= 2) {
          const table = (result.output as { Table?: { GlobalSecondaryIndexes?: Record<string, unknown>[] } }).Table;
          const index = table?.GlobalSecondaryIndexes?.find((each) => each.IndexName === 'byAuthorYear');
          if (index) Object.assign(index, { IndexStatus: 'CREATING', Backfilling: true });
        }
        return result;
      },
      { step: 'initialize', name: 'stillBuilding' },
    );
    const progress: string[] = [];
    const report = await completeAuthorKeys(client, tables.names.books, {
      indexPollMs: 10,
      log: (line) => progress.push(line),
    });
    expect(progress.filter((line) => line.startsWith('waiting'))).toStrictEqual([
      'waiting for DynamoDB to build byAuthorYear (CREATING, backfilling); checking again in 0 s',
      'waiting for DynamoDB to build byAuthorYear (CREATING, backfilling); checking again in 0 s',
    ]);
    expect(describes).toBe(3);
    expect(report).toMatchObject({ rewritten: 100, marked: true });
  });

  it('leaves a table still holding the older layout unmarked: its books get their keys when they move', async () => {
    const tables = await createTestTables();
    const client = createPatientDocumentClient(tables.endpoint);
    await client.send(
      new UpdateCommand({
        TableName: tables.names.books,
        Key: ID_BLOCKS_KEY,
        UpdateExpression: 'SET highMark = :n REMOVE #layout, authorIndex',
        ExpressionAttributeNames: { '#layout': 'layout' },
        ExpressionAttributeValues: { ':n': 10 },
      }),
    );
    const progress: string[] = [];
    expect(await completeAuthorKeys(client, tables.names.books, { log: (line) => progress.push(line) })).toMatchObject({
      marked: false,
      read: 0,
    });
    expect(progress).toStrictEqual([
      'author keys: not yet: books remain in the older layout (npm run data:migrate-layout moves them first)',
    ]);
    const { Item } = await client.send(new GetCommand({ TableName: tables.names.books, Key: ID_BLOCKS_KEY }));
    expect(Item?.authorIndex).toBeUndefined();
  });

  it('marks a table that has reserved no id yet (as the stack creates it: no id-blocks item), reading nothing', async () => {
    const tables = await createTestTables();
    const client = createPatientDocumentClient(tables.endpoint);
    await client.send(new DeleteCommand({ TableName: tables.names.books, Key: ID_BLOCKS_KEY }));
    expect(await completeAuthorKeys(client, tables.names.books)).toMatchObject({ marked: true, read: 0 });
    const { Item } = await client.send(new GetCommand({ TableName: tables.names.books, Key: ID_BLOCKS_KEY }));
    expect(Item).toStrictEqual({ ...ID_BLOCKS_KEY, authorIndex: 'two-shards' });
    // The first reservation still finds a new table: it marks the rest and takes the first ids.
    const store = new DynamoBookStore(client, tables.names.books);
    expect((await store.create(newBook('first-after-mark'))).book.id).toBe(1);
    const after = await client.send(new GetCommand({ TableName: tables.names.books, Key: ID_BLOCKS_KEY }));
    expect(after.Item).toMatchObject({ layout: 'ranges', rangeMarks: 'complete', authorIndex: 'two-shards' });
  });
});
