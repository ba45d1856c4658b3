import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { checkBooksTable } from '../../admin/invariants';
import { migrateBooksTable } from '../../admin/migrate-layout';
import { normalizeAuthor } from '../../shared/books/normalize';
import type { Book, BookFilter } from '../../shared/books/types';
import { bookRangeOf, ID_BLOCKS_KEY, isbnClaimKey, toBookItem } from '../../shared/store/books/book-items';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { newBook } from '../support/books';
import { createPatientDocumentClient, createTestTables } from '../support/dynamodb';

/**
 * A table written by the older code (books under BOOK#<id mod 32>, as its store wrote them, with
 * their ISBN claims and the id-blocks item), migrated while the service reads, changes, deletes and
 * creates books: afterwards every book is there once, as last written, and the invariants hold.
 */
const OLD_BOOKS = 2_000;
/** The older code's key, written out here: the test states what older tables hold, not what legacy/ reads. */
const olderBookKey = (id: number) => ({ pk: `BOOK#${id % 32}`, sk: id });
const STAMP = '2026-01-01T00:00:00.000Z';

const writeOlderTable = async (client: ReturnType<typeof createPatientDocumentClient>, table: string) => {
  const books: Book[] = Array.from({ length: OLD_BOOKS }, (_, i) => ({
    ...newBook(`old-${i + 1}`, { author: `Author ${i % 7}`, publicationYear: 1950 + (i % 30) }),
    id: i + 1,
    createdAt: STAMP,
    updatedAt: STAMP,
  }));
  // That code spread each author over 16 index keys and had no author-and-year key.
  const olderItem = (book: Book) => {
    const { yearId: _, ...item } = toBookItem(book, 1);
    return { ...item, ...olderBookKey(book.id), authorShard: `${book.id % 16}#${normalizeAuthor(book.author)}` };
  };
  const items = books.flatMap((book) => [olderItem(book), { ...isbnClaimKey(book.isbn), bookId: book.id }]);
  for (let start = 0; start < items.length; start += 25) {
    let requests = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    while (requests.length > 0) {
      const { UnprocessedItems } = await client.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  }
  // The older code's id-blocks item: ids reserved in blocks of 100, no layout mark.
  await client.send(new PutCommand({ TableName: table, Item: { ...ID_BLOCKS_KEY, highMark: OLD_BOOKS } }));
  return books;
};

const listIds = async (store: DynamoBookStore, filter: BookFilter) => {
  const ids: number[] = [];
  for await (const book of store.iterate(filter)) ids.push(book.id);
  return ids;
};

const listAll = async (store: DynamoBookStore) => {
  const ids: number[] = [];
  for await (const book of store.iterate({})) ids.push(book.id);
  return ids;
};

describe('npm run data:migrate-layout’s migration, while the service answers', () => {
  it('moves every book of the older layout once, none lost or duplicated, the service reading and writing meanwhile', async () => {
    const tables = await createTestTables();
    const client = createPatientDocumentClient(tables.endpoint);
    const old = await writeOlderTable(client, tables.names.books);
    const service = new DynamoBookStore(client, tables.names.books);

    // Before: the service reads the older layout, pages and all.
    expect((await service.get(17))?.book).toEqual(old[16]);
    expect((await listAll(service)).length).toBe(OLD_BOOKS);

    const expected = new Set(old.map((book) => book.id));
    const titles = new Map<number, string>();
    let migrating = true;
    const traffic = (async () => {
      for (let round = 0; migrating || round < 5; round++) {
        const id = 1 + ((round * 7919) % OLD_BOOKS);
        const found = await service.get(id);
        if (expected.has(id)) expect(found?.book.id).toBe(id);
        if (round % 3 === 0 && expected.has(id)) {
          const title = `Changed during the migration ${round}`;
          await service.update(id, { title, updatedAt: STAMP });
          titles.set(id, title);
        } else if (round % 3 === 1 && expected.has(id)) {
          await service.delete(id);
          expected.delete(id);
          titles.delete(id);
        } else {
          expected.add((await service.create(newBook(`new-${round}`))).book.id);
        }
      }
    })();
    const progress: string[] = [];
    const report = await migrateBooksTable(client, tables.names.books, {
      graceMs: 200,
      log: (line) => progress.push(line),
    });
    migrating = false;
    await traffic;

    expect(report.copied + report.alreadyCopied).toBeLessThanOrEqual(OLD_BOOKS);
    const removedAt = progress.findIndex((line) => /^removed: \d+ older items$/.test(line));
    expect(removedAt).toBeGreaterThan(0);
    // The ranges the older high mark had passed get their end marks, so lists end without the counter.
    expect(report.rangeMarks).toBeGreaterThan(0);
    expect(progress[removedAt + 1]).toBe(
      `end marks: ${report.rangeMarks} ranges marked; lists now end without reading the id blocks`,
    );
    // Copies keep the older author keys; the last step gives every book still there its new ones.
    expect(report.authorKeys).toBeGreaterThan(OLD_BOOKS / 2);
    expect(report.authorKeys).toBeLessThanOrEqual(OLD_BOOKS);
    expect(progress.at(-1)).toMatch(
      new RegExp(
        `^author keys: ${report.authorKeys} of \\d+ books rewritten; pages filtered by author now read two keys$`,
      ),
    );
    const byAuthor = [...expected].filter((id) => id <= OLD_BOOKS && (id - 1) % 7 === 3).sort((a, b) => a - b);
    expect(await listIds(service, { author: 'author 3' })).toStrictEqual(byAuthor);
    expect(await listIds(service, { author: 'AUTHOR 3', year: 1953 })).toStrictEqual(
      byAuthor.filter((id) => 1950 + ((id - 1) % 30) === 1953),
    );
    const listed = await listAll(service);
    expect(listed).toStrictEqual([...expected].sort((a, b) => a - b));
    for (const [id, title] of titles) expect((await service.get(id))?.book.title).toBe(title);
    const check = await checkBooksTable(client, tables.names.books);
    expect(check.violations).toStrictEqual([]);
    expect(check.books).toBe(expected.size);

    // Run again (as after an interruption): nothing left to do, nothing changed. The end marks are
    // written again: one per range below the high mark's, which creates during the migration's
    // later steps may have moved past the ranges the first run marked (their marks came with them).
    const { Item: counter } = await client.send(new GetCommand({ TableName: tables.names.books, Key: ID_BLOCKS_KEY }));
    expect(await migrateBooksTable(client, tables.names.books, { graceMs: 0 })).toStrictEqual({
      copied: 0,
      alreadyCopied: 0,
      removed: 0,
      rangeMarks: bookRangeOf(Number(counter?.highMark)),
      authorKeys: 0,
    });
    expect(bookRangeOf(Number(counter?.highMark))).toBeGreaterThanOrEqual(report.rangeMarks);
    expect((await checkBooksTable(client, tables.names.books)).violations).toStrictEqual([]);
    expect(await listAll(new DynamoBookStore(client, tables.names.books))).toStrictEqual(listed);
  }, 600_000);

  it('gives a range-layout table from before end marks its marks while the service creates, deletes and lists', async () => {
    const tables = await createTestTables();
    const client = createPatientDocumentClient(tables.endpoint);
    const service = new DynamoBookStore(client, tables.names.books);
    const ids: number[] = [];
    for (let i = 0; i < 300; i++) ids.push((await service.create(newBook(`ranges-${i}`))).book.id);
    // As the code before end marks left it: no marks, no `rangeMarks`, no fits on the counter.
    const { Items = [] } = await client.send(
      new ScanCommand({
        TableName: tables.names.books,
        FilterExpression: 'rangeMark = :t',
        ExpressionAttributeValues: { ':t': true },
      }),
    );
    expect(Items.length).toBeGreaterThan(0);
    for (const { pk, sk } of Items)
      await client.send(new DeleteCommand({ TableName: tables.names.books, Key: { pk, sk } }));
    await client.send(
      new UpdateCommand({
        TableName: tables.names.books,
        Key: ID_BLOCKS_KEY,
        UpdateExpression: 'REMOVE rangeMarks, fit2, fit8, fit32',
      }),
    );
    const expected = new Set(ids);
    const older = new DynamoBookStore(client, tables.names.books); // a container that has read nothing
    expect(await listAll(older)).toStrictEqual(ids);

    let migrating = true;
    const traffic = (async () => {
      for (let round = 0; migrating || round < 40; round++) {
        if (round % 4 === 3) {
          const id = [...expected][round % expected.size] as number;
          await older.delete(id);
          expected.delete(id);
        } else expected.add((await older.create(newBook(`ranges-new-${round}`))).book.id);
        expect(await listAll(older)).toStrictEqual([...expected].sort((a, b) => a - b));
      }
    })();
    const report = await migrateBooksTable(client, tables.names.books, { graceMs: 0 });
    migrating = false;
    await traffic;

    expect(report).toMatchObject({ copied: 0, alreadyCopied: 0, removed: 0 });
    expect(report.rangeMarks).toBeGreaterThan(0);
    expect((await checkBooksTable(client, tables.names.books)).violations).toStrictEqual([]);
    const fresh = new DynamoBookStore(client, tables.names.books);
    expect(await listAll(fresh)).toStrictEqual([...expected].sort((a, b) => a - b));
  }, 600_000);
});
