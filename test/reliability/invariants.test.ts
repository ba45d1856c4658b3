import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkBooksTable } from '../../ops/invariants';
import { toBookItem } from '../../shared/store/books/book-items';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { newBook } from '../support/books';
import { createTestTables } from '../support/dynamodb';

/** The checker must find each kind of corruption seeded behind the store's back, not only say "clean". */
describe('books table invariant checker', () => {
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  let store: DynamoBookStore;
  const check = () => checkBooksTable(tables.documentClient, tables.names.books);
  const put = (Item: Record<string, unknown>) =>
    tables.documentClient.send(new PutCommand({ TableName: tables.names.books, Item }));
  const kinds = async () => (await check()).violations.map((v) => v.kind).sort();

  beforeEach(async () => {
    tables = await createTestTables();
    store = new DynamoBookStore(tables.documentClient, tables.names.books);
    for (const isbn of ['978-1', '978-2', '978-3']) await store.create(newBook(isbn));
  });

  it('finds nothing wrong in what the store wrote, and counts it', async () => {
    await store.update(2, { isbn: '978-22', updatedAt: 'u' });
    await store.delete(3);
    // Ids come in blocks: the store reserved 1–2, then 3–10, and used 1–3.
    expect(await check()).toEqual({ books: 2, claims: 2, keyRecords: 0, lastId: 10, violations: [] });
  });

  it('finds an orphan claim', async () => {
    await put({ pk: 'ISBN#9789', sk: 0, bookId: 1 });
    await put({ pk: 'ISBN#9788', sk: 0, bookId: 77 });
    expect(await kinds()).toEqual(['orphan-claim', 'orphan-claim']);
  });

  it('finds a book whose ISBN has no claim', async () => {
    await tables.documentClient.send(
      new DeleteCommand({ TableName: tables.names.books, Key: { pk: 'ISBN#9782', sk: 0 } }),
    );
    expect(await kinds()).toEqual(['missing-claim']);
  });

  it('finds a claim pointing at another book', async () => {
    await put({ pk: 'ISBN#9782', sk: 0, bookId: 1 });
    expect(await kinds()).toEqual(['foreign-claim', 'orphan-claim']);
  });

  it('finds a book id above the highest reserved one', async () => {
    await put({ ...toBookItem({ id: 1_000, ...newBook('978-10') }, 1) });
    await put({ pk: 'ISBN#97810', sk: 0, bookId: 1_000 });
    expect(await kinds()).toEqual(['id-above-high-mark']);
  });

  it('finds a book under another shard’s key, and index keys that do not match the book', async () => {
    const { pk: _, ...two } = toBookItem({ id: 2, ...newBook('978-2') }, 1);
    await tables.documentClient.send(
      new DeleteCommand({ TableName: tables.names.books, Key: { pk: 'BOOKS#0', sk: 2 } }),
    );
    await put({ ...two, pk: 'BOOKS#3' });
    await tables.documentClient.send(
      new UpdateCommand({
        TableName: tables.names.books,
        Key: { pk: 'BOOKS#0', sk: 1 },
        UpdateExpression: 'SET author = :author',
        ExpressionAttributeValues: { ':author': 'Someone Else' },
      }),
    );
    expect(await kinds()).toEqual(['stale-index-key', 'wrong-shard']);
  });

  it('finds two books sharing a normalised ISBN', async () => {
    await tables.documentClient.send(
      new UpdateCommand({
        TableName: tables.names.books,
        Key: { pk: 'BOOKS#0', sk: 3 },
        UpdateExpression: 'SET isbn = :isbn, isbnKey = :key',
        ExpressionAttributeValues: { ':isbn': '978 1', ':key': '9781' },
      }),
    );
    expect(await kinds()).toEqual(['duplicate-isbn', 'foreign-claim', 'orphan-claim']);
  });

  it('finds an item whose id disagrees with its key, and a missing id-blocks item', async () => {
    await put({ ...toBookItem({ id: 2, ...newBook('978-2') }, 1), id: 5 });
    await tables.documentClient.send(
      new DeleteCommand({ TableName: tables.names.books, Key: { pk: 'ID_BLOCKS', sk: 0 } }),
    );
    expect(await kinds()).toEqual(['id-mismatch', 'missing-id-blocks', 'orphan-claim']);
  });
});

describe('npm run data:check', () => {
  const run = (args: string[]) =>
    promisify(execFile)('npx', ['tsx', 'tools/check-data.ts', ...args], { env: { ...process.env } }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout }),
    );

  it('exits 0 on a clean table and 1 with each violation printed on a corrupt one', async () => {
    const tables = await createTestTables();
    const target = ['--endpoint', tables.endpoint, '--table', tables.names.books];
    await new DynamoBookStore(tables.documentClient, tables.names.books).create(newBook('cli-1'));
    const clean = await run(target);
    expect(clean).toEqual({
      code: 0,
      stdout: expect.stringContaining('1 books, 1 ISBN claims, last id 2: no violations'),
    });

    await tables.documentClient.send(
      new PutCommand({ TableName: tables.names.books, Item: { pk: 'ISBN#GHOST', sk: 0, bookId: 9 } }),
    );
    const corrupt = await run(target);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stdout).toContain('orphan-claim: Claim on ISBN GHOST points at book 9');
    expect(corrupt.stdout).toContain('1 violation(s)');
  }, 60_000);

  it('explains itself with --help and refuses --aws without --table', async () => {
    expect((await run(['--help'])).stdout).toContain('Usage: npm run data:check');
    expect((await run(['--aws'])).code).toBe(2);
  }, 60_000);
});
