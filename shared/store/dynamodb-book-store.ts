import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { BookNotFoundError, DuplicateIsbnError } from '../books/errors';
import { MAX_BOOK_ID } from '../books/limits';
import { normalizeAuthor, normalizeIsbn } from '../books/normalize';
import type { Book, BookFilter, NewBook } from '../books/types';
import type { BookStore, ListOptions } from './book-store';
import { isConditionalCheckFailure } from './dynamodb-errors';

/** The item layout (see tables.ts); exported for the invariant checker, which reads it. */
export const BOOK_PARTITION = 'BOOK';
export const COUNTER_PARTITION = 'COUNTER';
export const ISBN_CLAIM_PREFIX = 'ISBN#';
const COUNTER_KEY = { pk: COUNTER_PARTITION, sk: 0 } as const;
const isbnClaimKey = (isbn: string) => ({ pk: `${ISBN_CLAIM_PREFIX}${normalizeIsbn(isbn)}`, sk: 0 });
const bookKey = (id: number) => ({ pk: BOOK_PARTITION, sk: id });

/** A book as stored: the Book plus its keys, index attributes and an optimistic-lock version. */
export interface BookItem extends Book {
  pk: typeof BOOK_PARTITION;
  sk: number;
  authorKey: string;
  isbnKey: string;
  version: number;
}

/** Optimistic writes retry when another writer changed the book in between. */
const MAX_UPDATE_ATTEMPTS = 10;

export class IdSpaceExhaustedError extends Error {
  override readonly name = 'IdSpaceExhaustedError';
}

/** Gave up after MAX_UPDATE_ATTEMPTS concurrent changes to one book. */
export class ConcurrentUpdateError extends Error {
  override readonly name = 'ConcurrentUpdateError';
}

/** Another item's state broke an invariant this store keeps (an ISBN claim missing or foreign). */
export class StoreInvariantError extends Error {
  override readonly name = 'StoreInvariantError';
}

export class DynamoBookStore implements BookStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(book: NewBook): Promise<Book> {
    const id = await this.nextId();
    const item = toBookItem({ ...book, id }, 1);
    for (let attempt = 1; attempt <= MAX_UPDATE_ATTEMPTS; attempt++) {
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
              this.claimIsbn(item),
            ],
          }),
        );
        return toBook(item);
      } catch (error) {
        const outcome = cancellation(error, 2);
        if (outcome === 'conflict') {
          await backoff(attempt);
          continue;
        }
        const [bookFailed, isbnFailed] = outcome;
        if (isbnFailed) throw new DuplicateIsbnError(book.isbn);
        if (bookFailed) throw new StoreInvariantError(`Book ${id} already exists though the counter issued it`);
        throw error;
      }
    }
    throw new ConcurrentUpdateError(`Creating book ${id} kept conflicting during ${MAX_UPDATE_ATTEMPTS} attempts`);
  }

  async get(id: number): Promise<Book | undefined> {
    const item = await this.getItem(id);
    return item && toBook(item);
  }

  /**
   * One Query per page, sent only when the caller asks for more: a caller that stops early (a full
   * page, a response that grew too large) reads no further. With `limit`, each Query asks for just
   * the books still wanted, so a short page costs capacity for those items, not a 1 MB page.
   */
  async *iterate(filter: BookFilter, options: ListOptions = {}): AsyncGenerator<Book, void, undefined> {
    // DynamoDB refuses an empty or oversized index key with an error; no stored author has one.
    if (filter.author !== undefined && !isStorableKey(normalizeAuthor(filter.author))) return;
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    let startKey = options.after === undefined ? undefined : listStartKey(filter, options.after);
    do {
      const page = await this.client.send(
        new QueryCommand({
          ...this.listQuery(filter),
          ...(startKey && { ExclusiveStartKey: startKey }),
          ...(Number.isFinite(remaining) && { Limit: remaining }),
        }),
      );
      for (const item of page.Items ?? []) {
        remaining--;
        yield toBook(item as BookItem);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey && remaining > 0);
  }

  async update(id: number, change: (current: Book) => Book): Promise<Book> {
    for (let attempt = 1; attempt <= MAX_UPDATE_ATTEMPTS; attempt++) {
      const current = await this.getItem(id);
      if (!current) throw new BookNotFoundError(id);
      const next = toBookItem({ ...change(toBook(current)), id }, current.version + 1);
      if (await this.tryReplace(current, next)) return toBook(next);
      await backoff(attempt);
    }
    throw new ConcurrentUpdateError(`Book ${id} kept changing during ${MAX_UPDATE_ATTEMPTS} attempts`);
  }

  async delete(id: number): Promise<void> {
    for (let attempt = 1; attempt <= MAX_UPDATE_ATTEMPTS; attempt++) {
      const current = await this.getItem(id);
      if (!current) throw new BookNotFoundError(id);
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: this.tableName, Key: bookKey(id), ...this.unchangedSince(current) } },
              this.releaseIsbn(current),
            ],
          }),
        );
        return;
      } catch (error) {
        const outcome = cancellation(error, 2);
        const [bookChanged, claimFailed] = outcome === 'conflict' ? [true, false] : outcome;
        if (bookChanged) {
          await backoff(attempt);
          continue;
        }
        if (claimFailed) throw new StoreInvariantError(`ISBN claim of book ${id} is missing or foreign`);
        throw error;
      }
    }
    throw new ConcurrentUpdateError(`Book ${id} kept changing during ${MAX_UPDATE_ATTEMPTS} attempts`);
  }

  /** One conditional write when the ISBN is kept; otherwise one transaction that moves the claim. */
  private async tryReplace(current: BookItem, next: BookItem): Promise<boolean> {
    const put = { TableName: this.tableName, Item: next, ...this.unchangedSince(current) };
    if (next.isbnKey === current.isbnKey) {
      try {
        await this.client.send(new PutCommand(put));
        return true;
      } catch (error) {
        if (isConditionalCheckFailure(error) || isTransactionConflict(error)) return false;
        throw error;
      }
    }
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: put }, this.releaseIsbn(current), this.claimIsbn(next)],
        }),
      );
      return true;
    } catch (error) {
      const outcome = cancellation(error, 3);
      if (outcome === 'conflict') return false;
      const [bookChanged, releaseFailed, isbnTaken] = outcome;
      if (bookChanged) return false;
      if (isbnTaken) throw new DuplicateIsbnError(next.isbn);
      if (releaseFailed) throw new StoreInvariantError(`ISBN claim of book ${current.id} is missing or foreign`);
      throw error;
    }
  }

  private async getItem(id: number): Promise<BookItem | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: bookKey(id), ConsistentRead: true }),
    );
    return Item as BookItem | undefined;
  }

  /** Ids come from an atomic counter: unique and never reused, even after a failed create. */
  private async nextId(): Promise<number> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: COUNTER_KEY,
        UpdateExpression: 'ADD lastId :one',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const id = Number(Attributes?.lastId);
    if (!Number.isSafeInteger(id) || id > MAX_BOOK_ID) throw new IdSpaceExhaustedError('No book ids left');
    return id;
  }

  private listQuery({ author, year }: BookFilter): QueryCommandInput {
    const base = { TableName: this.tableName, ScanIndexForward: true };
    if (author !== undefined) {
      return {
        ...base,
        IndexName: 'byAuthor',
        KeyConditionExpression: 'authorKey = :author',
        ...(year === undefined
          ? { ExpressionAttributeValues: { ':author': normalizeAuthor(author) } }
          : {
              FilterExpression: 'publicationYear = :year',
              ExpressionAttributeValues: { ':author': normalizeAuthor(author), ':year': year },
            }),
      };
    }
    if (year !== undefined) {
      return {
        ...base,
        IndexName: 'byYear',
        KeyConditionExpression: 'publicationYear = :year',
        ExpressionAttributeValues: { ':year': year },
      };
    }
    return {
      ...base,
      ConsistentRead: true,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': BOOK_PARTITION },
    };
  }

  private unchangedSince(current: BookItem) {
    return {
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': current.version },
    };
  }

  private claimIsbn(item: BookItem) {
    return {
      Put: {
        TableName: this.tableName,
        Item: { ...isbnClaimKey(item.isbn), bookId: item.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  private releaseIsbn(item: BookItem) {
    return {
      Delete: {
        TableName: this.tableName,
        Key: isbnClaimKey(item.isbn),
        ConditionExpression: 'bookId = :id',
        ExpressionAttributeValues: { ':id': item.id },
      },
    };
  }
}

/**
 * The key a Query resumes after, for the book with id `after`: the table's key plus, on an index, the
 * index's key, all of which follow from the filter and the id. So a cursor need carry only the id,
 * and the book need not exist any more.
 */
const listStartKey = ({ author, year }: BookFilter, after: number): Record<string, unknown> => {
  const key = bookKey(after);
  if (author !== undefined) return { ...key, authorKey: normalizeAuthor(author) };
  if (year !== undefined) return { ...key, publicationYear: year };
  return key;
};

/** The stored form of a book; exported for bulk loaders (the benchmark) that must write what the store reads. */
export const toBookItem = (book: Book, version: number): BookItem => ({
  ...book,
  pk: BOOK_PARTITION,
  sk: book.id,
  authorKey: normalizeAuthor(book.author),
  isbnKey: normalizeIsbn(book.isbn),
  version,
});

const toBook = (item: BookItem): Book => ({
  id: Number(item.id),
  title: item.title,
  author: item.author,
  isbn: item.isbn,
  publicationYear: Number(item.publicationYear),
  createdAt: item.createdAt,
  updatedAt: item.updatedAt,
});

/** DynamoDB's limit on a partition key value (index keys included), in UTF-8 bytes. */
const MAX_PARTITION_KEY_BYTES = 2048;

const isStorableKey = (key: string) => key !== '' && Buffer.byteLength(key, 'utf8') <= MAX_PARTITION_KEY_BYTES;

/**
 * A write that met another transaction on one of its items (DynamoDB then writes nothing). The SDK
 * does not retry it; the store does, like a lost optimistic-lock race, since the outcome of trying
 * again is decided by the conditions, not by the timing.
 */
const isTransactionConflict = (error: unknown): boolean =>
  error instanceof Error && error.name === 'TransactionConflictException';

/**
 * Why a transaction was cancelled: which items failed their condition, by position, or 'conflict'
 * when it only met another transaction. Any other error (throttling, validation, an outage) is rethrown.
 */
const cancellation = (error: unknown, count: number): boolean[] | 'conflict' => {
  if (!(error instanceof TransactionCanceledException)) throw error;
  const reasons = error.CancellationReasons ?? [];
  const failed = Array.from({ length: count }, (_, i) => reasons[i]?.Code === 'ConditionalCheckFailed');
  if (failed.some(Boolean)) return failed;
  if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return 'conflict';
  throw error;
};

const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** Math.min(attempt, 5)));
