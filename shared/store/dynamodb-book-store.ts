import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { BookNotFoundError, DuplicateIsbnError } from '../books/errors';
import { normalizeAuthor } from '../books/normalize';
import type { BookStore, ListOptions } from '../books/ports';
import type { Book, BookFilter, NewBook } from '../books/types';
import {
  authorShardKey,
  BOOK_SHARDS,
  type BookItem,
  BY_AUTHOR_INDEX,
  BY_YEAR_INDEX,
  bookKey,
  bookPartition,
  INDEX_SHARDS,
  isbnClaimKey,
  MAX_PARTITION_KEY_BYTES,
  shards,
  toBook,
  toBookItem,
  yearShardKey,
} from './book-items';
import { cancellation, isConditionalCheckFailure, isTransactionConflict, StoreInvariantError } from './errors';
import { IdBlockAllocator } from './id-blocks';
import { RETRY, retryOnConflict } from './retry';
import { mergeAscending } from './sorted-merge';

export class DynamoBookStore implements BookStore {
  private readonly ids: IdBlockAllocator;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.ids = new IdBlockAllocator(client, tableName);
  }

  /** One transaction (book and ISBN claim); the id comes from this container's block, mostly without a call. */
  async create(book: NewBook): Promise<Book> {
    const id = await this.ids.allocate();
    const item = toBookItem({ ...book, id }, 1);
    return retryOnConflict(`Creating book ${id}`, async () => {
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
        if (outcome === 'conflict') return RETRY;
        const [, isbnTaken] = outcome;
        if (isbnTaken) throw new DuplicateIsbnError(book.isbn);
        // cancellation() names at least one failed condition; if not the claim's, the book's own.
        throw new StoreInvariantError(`Book ${id} already exists though its id block issued it`);
      }
    });
  }

  async get(id: number): Promise<Book | undefined> {
    const item = await this.getItem(id);
    return item && toBook(item);
  }

  /**
   * The matching books in ascending id order: one Query per key the filter spans (every book shard,
   * or the author's or year's index shards), merged by id. Each key's next page is read only when
   * the merge has taken its last book, so a caller that stops early (a full page, a response grown
   * too large) reads no further; with `limit`, each Query asks for about the share of books its key
   * is expected to hold, so a short page costs capacity for those items, not a 1 MB page per key.
   */
  iterate(filter: BookFilter, options: ListOptions = {}): AsyncIterable<Book> {
    // DynamoDB refuses an oversized index key with an error; no stored author has one.
    if (filter.author !== undefined && !isStorableKey(authorShardKey(normalizeAuthor(filter.author), 0))) {
      return mergeAscending([], (book: Book) => book.id);
    }
    const queries = this.listQueries(filter);
    const perKey =
      options.limit === undefined ? undefined : Math.min(options.limit, Math.ceil(options.limit / queries.length) + 1);
    const sources = queries.map(({ query, startKey }) =>
      this.queryPages(query, options.after === undefined ? undefined : startKey(options.after), perKey),
    );
    return take(
      mergeAscending(sources, (book) => book.id),
      options.limit,
    );
  }

  async update(id: number, change: (current: Book) => Book): Promise<Book> {
    return retryOnConflict(`Book ${id}`, async () => {
      const current = await this.getItem(id);
      if (!current) throw new BookNotFoundError(id);
      const next = toBookItem({ ...change(toBook(current)), id }, current.version + 1);
      return (await this.tryReplace(current, next)) ? toBook(next) : RETRY;
    });
  }

  async delete(id: number): Promise<void> {
    await retryOnConflict(`Book ${id}`, async () => {
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
        return undefined;
      } catch (error) {
        const outcome = cancellation(error, 2);
        if (outcome === 'conflict') return RETRY;
        const [bookChanged] = outcome;
        if (bookChanged) return RETRY;
        throw new StoreInvariantError(`ISBN claim of book ${id} is missing or foreign`);
      }
    });
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
      const [bookChanged, , isbnTaken] = outcome;
      if (bookChanged) return false;
      if (isbnTaken) throw new DuplicateIsbnError(next.isbn);
      throw new StoreInvariantError(`ISBN claim of book ${current.id} is missing or foreign`);
    }
  }

  /** Strongly consistent, straight to the book's own key. */
  private async getItem(id: number): Promise<BookItem | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: bookKey(id), ConsistentRead: true }),
    );
    return Item as BookItem | undefined;
  }

  /** One key's books in ascending id order, a page at a time as the merge asks for them. */
  private async *queryPages(
    query: QueryCommandInput,
    startKey: Record<string, unknown> | undefined,
    pageSize: number | undefined,
  ): AsyncGenerator<Book, void, undefined> {
    let exclusiveStartKey = startKey;
    do {
      const page = await this.client.send(
        new QueryCommand({
          ...query,
          ...(exclusiveStartKey && { ExclusiveStartKey: exclusiveStartKey }),
          ...(pageSize !== undefined && { Limit: pageSize }),
        }),
      );
      for (const item of page.Items ?? []) yield toBook(item as BookItem);
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey);
  }

  /**
   * A Query per key the filter spans, each with the key it resumes after for a cursor's id: the
   * table's key plus, on an index, the index's key, all of which follow from the filter and the id.
   * So a cursor need carry only the id, and the book need not exist any more.
   */
  private listQueries({ author, year }: BookFilter) {
    const base = { TableName: this.tableName, ScanIndexForward: true };
    if (author !== undefined) {
      const authorKey = normalizeAuthor(author);
      return shards(INDEX_SHARDS).map((shard) => ({
        query: {
          ...base,
          IndexName: BY_AUTHOR_INDEX,
          KeyConditionExpression: 'authorShard = :author',
          ...(year === undefined
            ? { ExpressionAttributeValues: { ':author': authorShardKey(authorKey, shard) } }
            : {
                FilterExpression: 'publicationYear = :year',
                ExpressionAttributeValues: { ':author': authorShardKey(authorKey, shard), ':year': year },
              }),
        },
        startKey: (after: number) => ({ ...bookKey(after), authorShard: authorShardKey(authorKey, shard) }),
      }));
    }
    if (year !== undefined) {
      return shards(INDEX_SHARDS).map((shard) => ({
        query: {
          ...base,
          IndexName: BY_YEAR_INDEX,
          KeyConditionExpression: 'yearShard = :year',
          ExpressionAttributeValues: { ':year': yearShardKey(year, shard) },
        },
        startKey: (after: number) => ({ ...bookKey(after), yearShard: yearShardKey(year, shard) }),
      }));
    }
    return shards(BOOK_SHARDS).map((shard) => ({
      query: {
        ...base,
        ConsistentRead: true,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': bookPartition(shard) },
      },
      startKey: (after: number) => ({ pk: bookPartition(shard), sk: after }),
    }));
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

  /** Only the claim this book holds: never another book's claim on the same ISBN. */
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

const isStorableKey = (key: string) => Buffer.byteLength(key, 'utf8') <= MAX_PARTITION_KEY_BYTES;

/** The first `limit` items (all without a limit), stopping the source as soon as they are taken. */
async function* take<T>(source: AsyncIterable<T>, limit: number | undefined): AsyncGenerator<T, void, undefined> {
  if (limit === undefined) {
    yield* source;
    return;
  }
  if (limit <= 0) return;
  let taken = 0;
  for await (const item of source) {
    yield item;
    if (++taken >= limit) return;
  }
}
