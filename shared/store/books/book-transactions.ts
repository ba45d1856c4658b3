import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  BookNotFoundError,
  DuplicateIsbnError,
  IdempotencyKeyReusedError,
  PreconditionFailedError,
} from '../../books/errors';
import { IDEMPOTENCY_KEY_LIFETIME_SECONDS, type IdempotentRequest } from '../../books/idempotency';
import { failedPrecondition, type VersionCondition } from '../../books/preconditions';
import type { Book, NewBook, VersionedBook } from '../../books/types';
import { StoreInvariantError } from '../errors';
import { cancellationOf, type NamedWrite, transactWrite } from '../named-transactions';
import { LostRace, type Retry, retryOnConflict } from '../retry';
import {
  type BookItem,
  bookKey,
  EXPIRES_AT_ATTRIBUTE,
  type IdempotencyRecord,
  idempotencyRecordKey,
  isbnClaimKey,
  toBook,
  toBookItem,
} from './book-items';
import { readBookItem } from './book-reads';
import type { BookStoreContext } from './book-store-context';
import { updateExpression, versioned } from './update-expressions';

/**
 * The book store's transactions: a create (book, ISBN claim, key record), a delete (the same three
 * released) and an update that moves the ISBN claim. Each write is named, and a cancellation is
 * read by those names.
 */
export class BookTransactions {
  constructor(private readonly context: BookStoreContext) {}

  /**
   * One transaction: the book, its ISBN claim and, with a key, the key's record. A key already held
   * comes back in the cancellation itself, so a repeat reads the first outcome without another call.
   */
  async create(id: number, book: NewBook, idempotency?: IdempotentRequest, createdBy?: string): Promise<VersionedBook> {
    const now = this.context.nowSeconds();
    const record = idempotency && idempotencyRecord(idempotency, { ...book, id }, now);
    const item: BookItem = {
      ...toBookItem({ ...book, id }, 1),
      ...(createdBy !== undefined && { createdBy, updatedBy: createdBy }),
      ...(record && { idempotencyRecord: record.pk, idempotencyExpiresAt: record.expiresAt }),
    };
    const writes: NamedWrite<'book' | 'claim' | 'keyRecord'>[] = [
      {
        name: 'book',
        write: { Put: { TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      },
      { name: 'claim', write: this.claimIsbn(item) },
      ...(record ? [{ name: 'keyRecord' as const, write: this.putIdempotencyRecord(record, now) }] : []),
    ];
    return retryOnConflict(`Creating book ${id}`, async () => {
      try {
        await transactWrite(this.context.client, writes);
        return { book: toBook(item), version: item.version };
      } catch (error) {
        const outcome = cancellationOf(error, writes);
        if (outcome === 'conflict') return new LostRace(error);
        if (outcome.failed('keyRecord') && record) return this.replay(record, outcome.returned('keyRecord'), error);
        if (outcome.failed('claim')) throw new DuplicateIsbnError(book.isbn, { cause: error });
        // A cancellation names at least one failed condition; if not the claim's, the book's own.
        throw new StoreInvariantError(`Book ${id} already exists though its id block issued it`, { cause: error });
      }
    });
  }

  async delete(id: number, condition?: VersionCondition): Promise<void> {
    let recordReassigned = false;
    await retryOnConflict(`Book ${id}`, async () => {
      const current = await readBookItem(this.context, id);
      if (!current) throw new BookNotFoundError(id);
      const failed = failedPrecondition(current.version, condition);
      if (failed) throw new PreconditionFailedError(id, current.version, failed);
      const record = recordReassigned ? undefined : this.liveRecordOf(current);
      const writes: NamedWrite<'book' | 'claim' | 'keyRecord'>[] = [
        { name: 'book', write: { Delete: { TableName: this.table, Key: bookKey(id), ...unchangedSince(current) } } },
        { name: 'claim', write: this.releaseIsbn(current) },
        ...(record ? [{ name: 'keyRecord' as const, write: this.deleteIdempotencyRecord(record, id) }] : []),
      ];
      try {
        await transactWrite(this.context.client, writes);
        return undefined;
      } catch (error) {
        const outcome = cancellationOf(error, writes);
        if (outcome === 'conflict' || outcome.failed('book')) return new LostRace(error);
        if (outcome.failed('claim')) {
          throw new StoreInvariantError(`ISBN claim of book ${id} is missing or foreign`, { cause: error });
        }
        // The key expired and another create of its owner took it: that record is no longer this book's.
        recordReassigned = outcome.failed('keyRecord');
        return new LostRace(error);
      }
    });
  }

  /** The transaction that moves a book's ISBN claim with its change, if the book is still as `current`. */
  async moveIsbn(current: BookItem, attributes: Record<string, unknown>): Promise<VersionedBook | Retry> {
    const next = { ...current, ...attributes, version: current.version + 1 } as BookItem;
    const { ConditionExpression, ExpressionAttributeValues } = unchangedSince(current);
    const writes: NamedWrite<'book' | 'oldClaim' | 'newClaim'>[] = [
      {
        name: 'book',
        write: {
          Update: {
            TableName: this.table,
            Key: bookKey(current.id),
            ...updateExpression(attributes, [ConditionExpression], ExpressionAttributeValues),
          },
        },
      },
      { name: 'oldClaim', write: this.releaseIsbn(current) },
      { name: 'newClaim', write: this.claimIsbn(next) },
    ];
    try {
      await transactWrite(this.context.client, writes);
      return versioned(next);
    } catch (error) {
      const outcome = cancellationOf(error, writes);
      if (outcome === 'conflict' || outcome.failed('book')) return new LostRace(error);
      if (outcome.failed('newClaim')) throw new DuplicateIsbnError(next.isbn, { cause: error });
      throw new StoreInvariantError(`ISBN claim of book ${current.id} is missing or foreign`, { cause: error });
    }
  }

  private get table() {
    return this.context.tableName;
  }

  /**
   * The outcome of the request that first used this key: its book as created, or 422 for another
   * body. DynamoDB returns the record with the cancellation; should a reason come without it, one
   * strongly consistent read fetches it (gone by then: the key expired, so run the create again).
   */
  private async replay(
    record: IdempotencyRecord,
    returned: Parameters<typeof unmarshall>[0] | undefined,
    error: unknown,
  ) {
    const held = returned
      ? (unmarshall(returned) as IdempotencyRecord)
      : ((
          await this.context.client.send(
            new GetCommand({ TableName: this.table, Key: { pk: record.pk, sk: 0 }, ConsistentRead: true }),
          )
        ).Item as IdempotencyRecord | undefined);
    if (!held) return new LostRace(error);
    if (held.fingerprint !== record.fingerprint) throw new IdempotencyKeyReusedError({ cause: error });
    // The record's map comes back in DynamoDB's attribute order: the replay's body must be byte for byte the first one.
    return { book: toBook(held.book), version: held.version };
  }

  /** DynamoDB's TTL deletes lazily (typically within days): an expired record still stored is free to take. */
  private putIdempotencyRecord(record: IdempotencyRecord, now: number) {
    return {
      Put: {
        TableName: this.table,
        Item: record,
        ConditionExpression: 'attribute_not_exists(pk) OR #expiresAt <= :now',
        ExpressionAttributeNames: { '#expiresAt': EXPIRES_AT_ATTRIBUTE },
        ExpressionAttributeValues: { ':now': now },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      },
    };
  }

  /** The key record a book still holds: none once it has expired (it may be gone, or another book's). */
  private liveRecordOf(item: BookItem) {
    const { idempotencyRecord, idempotencyExpiresAt } = item;
    if (idempotencyRecord === undefined || idempotencyExpiresAt === undefined) return undefined;
    return idempotencyExpiresAt > this.context.nowSeconds() ? { pk: idempotencyRecord, sk: 0 } : undefined;
  }

  /** Only while it is still this book's: a missing record (TTL was early) is no reason to refuse the delete. */
  private deleteIdempotencyRecord(key: { pk: string; sk: number }, id: number) {
    return {
      Delete: {
        TableName: this.table,
        Key: key,
        ConditionExpression: 'attribute_not_exists(pk) OR bookId = :id',
        ExpressionAttributeValues: { ':id': id },
      },
    };
  }

  private claimIsbn(item: BookItem) {
    return {
      Put: {
        TableName: this.table,
        Item: { ...isbnClaimKey(item.isbn), bookId: item.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  /** Only the claim this book holds: never another book's claim on the same ISBN. */
  private releaseIsbn(item: BookItem) {
    return {
      Delete: {
        TableName: this.table,
        Key: isbnClaimKey(item.isbn),
        ConditionExpression: 'bookId = :id',
        ExpressionAttributeValues: { ':id': item.id },
      },
    };
  }
}

const unchangedSince = (current: BookItem) => ({
  ConditionExpression: 'version = :version',
  ExpressionAttributeValues: { ':version': current.version },
});

const idempotencyRecord = (idempotency: IdempotentRequest, book: Book, now: number): IdempotencyRecord => ({
  ...idempotencyRecordKey(idempotency.owner, idempotency.key),
  bookId: book.id,
  fingerprint: idempotency.fingerprint,
  book,
  version: 1,
  expiresAt: now + IDEMPOTENCY_KEY_LIFETIME_SECONDS,
});
