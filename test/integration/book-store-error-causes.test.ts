import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BookNotFoundError,
  DuplicateIsbnError,
  IdempotencyKeyReusedError,
  PreconditionFailedError,
} from '../../shared/books/errors';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { ConcurrentUpdateError, StoreInvariantError } from '../../shared/store/errors';
import { newBook } from '../support/books';
import { createPatientDocumentClient, createTestTables } from '../support/dynamodb';

/**
 * Every DynamoDB error the book store translates into a named error stays on it as `cause`, so the
 * log line of a 4xx or 500 still shows what DynamoDB answered (Powertools' logger prints the cause).
 */
describe('the book store keeps the DynamoDB error behind each error it names', () => {
  let store: DynamoBookStore;
  let tables: Awaited<ReturnType<typeof createTestTables>>;
  beforeAll(async () => {
    tables = await createTestTables();
    store = new DynamoBookStore(createPatientDocumentClient(tables.endpoint), tables.names.books);
  });

  /** What `action` rejected with, checked to be an instance of `type`. */
  const rejection = async <E extends Error>(action: Promise<unknown>, type: new (...args: never[]) => E) => {
    const error = await action.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(type);
    return error as E;
  };
  const conditionalCheckFailure = expect.objectContaining({ name: 'ConditionalCheckFailedException' });

  it('a duplicate ISBN on create and on an ISBN change: the cancelled transaction', async () => {
    const held = await store.create(newBook('cause-dup'));
    const onCreate = await rejection(store.create(newBook('cause-dup')), DuplicateIsbnError);
    expect(onCreate.cause).toBeInstanceOf(TransactionCanceledException);

    const other = await store.create(newBook('cause-dup-other'));
    const onChange = await rejection(
      store.update(other.book.id, { isbn: held.book.isbn, updatedAt: 'u' }),
      DuplicateIsbnError,
    );
    expect(onChange.cause).toBeInstanceOf(TransactionCanceledException);
  });

  it('an update of a missing book, and one whose If-Match names an old version: the failed condition', async () => {
    const missing = await rejection(store.update(999_999, { title: 'x', updatedAt: 'u' }), BookNotFoundError);
    expect(missing.cause).toEqual(conditionalCheckFailure);

    const target = await store.create(newBook('cause-stale'));
    const stale = await rejection(
      store.update(target.book.id, { title: 'x', updatedAt: 'u' }, { match: [target.version + 5] }),
      PreconditionFailedError,
    );
    expect(stale.cause).toEqual(conditionalCheckFailure);
  });

  it('a key reused with another body: the cancelled transaction that returned the first request', async () => {
    const key = (fingerprint: string) => ({ owner: 'demo', key: 'cause-key', fingerprint });
    await store.create(newBook('cause-key-1'), key('f1'));
    const reused = await rejection(store.create(newBook('cause-key-2'), key('f2')), IdempotencyKeyReusedError);
    expect(reused.cause).toBeInstanceOf(TransactionCanceledException);
  });

  it('a write that kept meeting other transactions until the retries ran out: the last conflict', async () => {
    /** A store whose `commandName` calls always fail with `fault`, answered in place of DynamoDB's. */
    const storeConflicting = (commandName: string, fault: () => Error) => {
      const client = createPatientDocumentClient(tables.endpoint);
      client.middlewareStack.add(
        (next, context) => async (args) => {
          if (context.commandName === commandName) throw fault();
          return next(args);
        },
        { step: 'deserialize', name: 'injectConflict' },
      );
      return new DynamoBookStore(client, tables.names.books);
    };
    const conflict = new TransactionConflictException({
      message: 'Transaction is ongoing for the item',
      $metadata: {},
    });
    const cancelled = new TransactionCanceledException({
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
      $metadata: {},
      CancellationReasons: [{ Code: 'TransactionConflict' }],
    });

    const target = await store.create(newBook('cause-contended'));
    const onUpdate = await rejection(
      storeConflicting('UpdateItemCommand', () => conflict).update(target.book.id, { title: 'x', updatedAt: 'u' }),
      ConcurrentUpdateError,
    );
    expect(onUpdate.cause).toBe(conflict);

    const onCreate = await rejection(
      storeConflicting('TransactWriteItemsCommand', () => cancelled).create(newBook('cause-contended-new')),
      ConcurrentUpdateError,
    );
    expect(onCreate.cause).toBe(cancelled);
  });

  it("a broken invariant (a missing ISBN claim, an id taken behind the store's back): the cancelled transaction", async () => {
    const target = await store.create(newBook('cause-claim'));
    await tables.documentClient.send(
      new DeleteCommand({ TableName: tables.names.books, Key: { pk: 'ISBN#CAUSECLAIM', sk: 0 } }),
    );
    const claimGone = await rejection(store.delete(target.book.id), StoreInvariantError);
    expect(claimGone.cause).toBeInstanceOf(TransactionCanceledException);

    const own = await createTestTables();
    const client = createPatientDocumentClient(own.endpoint);
    await client.send(new PutCommand({ TableName: own.names.books, Item: { pk: 'BOOKS#0', sk: 1, id: 1 } }));
    const taken = await rejection(
      new DynamoBookStore(client, own.names.books).create(newBook('cause-id')),
      StoreInvariantError,
    );
    expect(taken.cause).toBeInstanceOf(TransactionCanceledException);
  });
});
