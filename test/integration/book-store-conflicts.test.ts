import {
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { normalizeIsbn } from '../../shared/books/normalize';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { ConcurrentUpdateError } from '../../shared/store/errors';
import { MAX_WRITE_ATTEMPTS } from '../../shared/store/retry';
import { newBook } from '../support/books';
import { createPatientDocumentClient, createTestTables } from '../support/dynamodb';

/**
 * The book store when DynamoDB answers a write with a transaction conflict, which Dynoxide
 * only does by chance under concurrency. The answer is injected into the store's own client in place
 * of DynamoDB's (at the SDK's deserialize step: the request is built, not sent), on a patient client
 * that does not retry by itself; every other call reaches Dynoxide. A conflict means
 * "nothing was written, run again": the store runs the write again on fresh state, and gives up
 * with a ConcurrentUpdateError naming the book after MAX_WRITE_ATTEMPTS.
 */
let tables: Awaited<ReturnType<typeof createTestTables>>;

beforeAll(async () => {
  tables = await createTestTables();
  // The id-blocks item exists (a new table's first reservation is a transaction of its own): each store's
  // first block is then one update, and the only transactions counted are the writes under test.
  await new DynamoBookStore(createPatientDocumentClient(tables.endpoint), tables.names.books).create(book());
});

let isbns = 0;
const book = () => newBook(`conflict-${++isbns}`);

/** A store whose low-level `commandName` calls (e.g. TransactWriteItemsCommand) fail `times` times with `fault`. */
const storeFailing = (commandName: string, fault: () => Error, times = Number.POSITIVE_INFINITY) => {
  const client = createPatientDocumentClient(tables.endpoint);
  const calls = { failed: 0, passed: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== commandName) return next(args);
      if (calls.failed < times) {
        calls.failed++;
        throw fault();
      }
      calls.passed++;
      return next(args);
    },
    { step: 'deserialize', name: 'injectFault' },
  );
  return { store: new DynamoBookStore(client, tables.names.books), calls };
};

/** What DynamoDB answers a transaction that met another one on the item at each position. */
const transactionConflict =
  (...codes: string[]) =>
  () =>
    new TransactionCanceledException({
      message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
      $metadata: {},
      CancellationReasons: codes.map((Code) => ({ Code })),
    });
const writeConflict = () =>
  new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: {} });
const throttled = () =>
  new ThrottlingException({ message: 'Rate of requests exceeds the allowed throughput', $metadata: {} });

/** The books table as another reader sees it. */
const reader = () => new DynamoBookStore(createPatientDocumentClient(tables.endpoint), tables.names.books);
const claimOf = async (isbn: string) =>
  (
    await tables.documentClient.send(
      new GetCommand({ TableName: tables.names.books, Key: { pk: `ISBN#${normalizeIsbn(isbn)}`, sk: 0 } }),
    )
  ).Item;

describe('a create', () => {
  it('that meets another transaction once runs again and is stored, with its ISBN claimed', async () => {
    const { store, calls } = storeFailing(
      'TransactWriteItemsCommand',
      transactionConflict('None', 'TransactionConflict'),
      1,
    );
    const created = (await store.create(book())).book;
    expect(calls).toStrictEqual({ failed: 1, passed: 1 });
    expect((await reader().get(created.id))?.book).toStrictEqual(created);
    expect(await claimOf(created.isbn)).toMatchObject({ bookId: created.id });
  });

  it('whose conflict never clears gives up after MAX_WRITE_ATTEMPTS, naming the book, with nothing written', async () => {
    const { store, calls } = storeFailing(
      'TransactWriteItemsCommand',
      transactionConflict('TransactionConflict', 'None'),
    );
    const attempt = book();
    const error = await store.create(attempt).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConcurrentUpdateError);
    expect((error as Error).message).toMatch(
      new RegExp(`^Creating book \\d+ kept conflicting during ${MAX_WRITE_ATTEMPTS} attempts$`),
    );
    expect(calls.failed).toBe(MAX_WRITE_ATTEMPTS);
    const id = Number((error as Error).message.split(' ')[2]);
    expect((await reader().get(id))?.book).toBeUndefined();
    expect(await claimOf(attempt.isbn)).toBeUndefined();
  });
});

describe('an update that keeps the ISBN (one conditional UpdateItem)', () => {
  it('that meets another transaction once runs again and is stored', async () => {
    const created = (await reader().create(book())).book;
    const { store, calls } = storeFailing('UpdateItemCommand', writeConflict, 1);
    const { book: updated } = await store.update(created.id, { title: 'Retitled', updatedAt: 'u' });
    expect(calls).toStrictEqual({ failed: 1, passed: 1 });
    expect(updated).toMatchObject({ id: created.id, title: 'Retitled' });
    expect((await reader().get(created.id))?.book).toStrictEqual(updated);
  });

  it('whose write fails for another reason passes the error on, without running again', async () => {
    const created = (await reader().create(book())).book;
    const { store, calls } = storeFailing('UpdateItemCommand', throttled, 1);
    await expect(store.update(created.id, { title: 'Lost', updatedAt: 'u' })).rejects.toBeInstanceOf(
      ThrottlingException,
    );
    expect(calls).toStrictEqual({ failed: 1, passed: 0 });
    expect((await reader().get(created.id))?.book).toStrictEqual(created);
  });

  it('whose conflict never clears gives up after MAX_WRITE_ATTEMPTS, naming the book, and changes nothing', async () => {
    const created = (await reader().create(book())).book;
    const { store } = storeFailing('UpdateItemCommand', writeConflict);
    await expect(store.update(created.id, { title: 'Lost', updatedAt: 'u' })).rejects.toThrow(
      new ConcurrentUpdateError(`Book ${created.id} kept conflicting during ${MAX_WRITE_ATTEMPTS} attempts`),
    );
    expect((await reader().get(created.id))?.book).toStrictEqual(created);
  });
});

describe('an update that moves the ISBN (a failed UpdateItem that returns the book, then one transaction of three writes)', () => {
  it('that meets another transaction once runs again: the book and both claims end up moved', async () => {
    const created = (await reader().create(book())).book;
    const moved = `${created.isbn}-moved`;
    const { store, calls } = storeFailing(
      'TransactWriteItemsCommand',
      transactionConflict('None', 'TransactionConflict', 'None'),
      1,
    );
    const { book: updated } = await store.update(created.id, { isbn: moved, updatedAt: 'u' });
    expect(calls).toStrictEqual({ failed: 1, passed: 1 });
    expect((await reader().get(created.id))?.book).toStrictEqual(updated);
    expect(updated.isbn).toBe(moved);
    expect(await claimOf(moved)).toMatchObject({ bookId: created.id });
    expect(await claimOf(created.isbn)).toBeUndefined();
  });
});

describe('a delete', () => {
  it('that meets another transaction once runs again: the book is gone and its ISBN free', async () => {
    const created = (await reader().create(book())).book;
    const { store, calls } = storeFailing(
      'TransactWriteItemsCommand',
      transactionConflict('TransactionConflict', 'None'),
      1,
    );
    await store.delete(created.id);
    expect(calls).toStrictEqual({ failed: 1, passed: 1 });
    expect((await reader().get(created.id))?.book).toBeUndefined();
    expect(await claimOf(created.isbn)).toBeUndefined();
  });

  it('whose conflict never clears gives up after MAX_WRITE_ATTEMPTS, naming the book, which stays', async () => {
    const created = (await reader().create(book())).book;
    const { store } = storeFailing('TransactWriteItemsCommand', transactionConflict('None', 'TransactionConflict'));
    await expect(store.delete(created.id)).rejects.toThrow(
      new ConcurrentUpdateError(`Book ${created.id} kept conflicting during ${MAX_WRITE_ATTEMPTS} attempts`),
    );
    expect((await reader().get(created.id))?.book).toStrictEqual(created);
    expect(await claimOf(created.isbn)).toMatchObject({ bookId: created.id });
  });
});

describe('a create with an Idempotency-Key', () => {
  const key = { owner: 'demo', key: 'conflicted-key', fingerprint: 'f1' };

  it('whose cancellation names the key but comes without its record reads the record, and replays it', async () => {
    const attempt = book();
    const first = await reader().create(attempt, key);
    const { store, calls } = storeFailing(
      'TransactWriteItemsCommand',
      transactionConflict('None', 'ConditionalCheckFailed', 'ConditionalCheckFailed'),
      1,
    );
    expect(await store.create(attempt, key)).toStrictEqual(first);
    expect(calls).toStrictEqual({ failed: 1, passed: 0 });
  });

  it('that meets another transaction runs again and then replays the first create', async () => {
    const attempt = book();
    const first = await reader().create(attempt, { ...key, key: 'conflicted-key-2' });
    const { store, calls } = storeFailing(
      'TransactWriteItemsCommand',
      transactionConflict('None', 'None', 'TransactionConflict'),
      1,
    );
    expect(await store.create(attempt, { ...key, key: 'conflicted-key-2' })).toStrictEqual(first);
    expect(calls).toStrictEqual({ failed: 1, passed: 1 });
  });
});
