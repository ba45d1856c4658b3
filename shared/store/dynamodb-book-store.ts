import {
  type AttributeValue,
  QueryCommand as AttributeValueQueryCommand,
  type ConditionalCheckFailedException,
  type TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import {
  BookNotFoundError,
  DuplicateIsbnError,
  IdempotencyKeyReusedError,
  PreconditionFailedError,
} from '../books/errors';
import { IDEMPOTENCY_KEY_LIFETIME_SECONDS, type IdempotentRequest } from '../books/idempotency';
import { normalizeAuthor } from '../books/normalize';
import type { BookChange, BookStore, ListOptions } from '../books/ports';
import { failedPrecondition, type VersionCondition } from '../books/preconditions';
import type { Book, BookFilter, NewBook, VersionedBook } from '../books/types';
import {
  authorShardKey,
  BOOK_PROJECTION,
  BOOK_SHARDS,
  type BookItem,
  BY_AUTHOR_INDEX,
  BY_YEAR_INDEX,
  bookFromAttributes,
  bookKey,
  bookPartition,
  changedAttributes,
  EXPIRES_AT_ATTRIBUTE,
  type IdempotencyRecord,
  INDEX_SHARDS,
  idempotencyRecordKey,
  isbnClaimKey,
  MAX_PARTITION_KEY_BYTES,
  shards,
  streamPageItems,
  toBook,
  toBookItem,
  yearShardKey,
} from './book-items';
import { cancellation, isConditionalCheckFailure, isTransactionConflict, StoreInvariantError } from './errors';
import { IdBlockAllocator } from './id-blocks';
import { LostRace, type Retry, retryOnConflict } from './retry';
import { mergeAscending } from './sorted-merge';

/** Keys a count reads at once (see countUpTo). */
const COUNT_KEYS_AT_ONCE = 4;

export class DynamoBookStore implements BookStore {
  private readonly ids: IdBlockAllocator;

  /** `clock` gives the time against which idempotency records expire (tests move it). */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.ids = new IdBlockAllocator(client, tableName);
  }

  /**
   * One transaction: the book, its ISBN claim and, with a key, the key's record (so neither exists
   * without the other); the id comes from this container's block, mostly without a call. A key
   * already held comes back in the cancellation itself (ReturnValuesOnConditionCheckFailure), so
   * a retried or concurrent request with that key reads the first one's outcome without another call.
   */
  async create(book: NewBook, idempotency?: IdempotentRequest): Promise<VersionedBook> {
    const id = await this.ids.allocate();
    const now = this.nowSeconds();
    const record = idempotency && this.idempotencyRecord(idempotency, { ...book, id }, now);
    const item: BookItem = {
      ...toBookItem({ ...book, id }, 1),
      ...(record && { idempotencyRecord: record.pk, idempotencyExpiresAt: record.expiresAt }),
    };
    return retryOnConflict(`Creating book ${id}`, async () => {
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
              this.claimIsbn(item),
              ...(record ? [this.putIdempotencyRecord(record, now)] : []),
            ],
          }),
        );
        return { book: toBook(item), version: item.version };
      } catch (error) {
        const outcome = cancellation(error, 3);
        if (outcome === 'conflict') return new LostRace(error);
        const [, isbnTaken, keyUsed] = outcome;
        if (keyUsed && record) return this.replay(record, record.fingerprint, error);
        if (isbnTaken) throw new DuplicateIsbnError(book.isbn, { cause: error });
        // cancellation() names at least one failed condition; if not the claim's, the book's own.
        throw new StoreInvariantError(`Book ${id} already exists though its id block issued it`, { cause: error });
      }
    });
  }

  async get(id: number): Promise<VersionedBook | undefined> {
    const item = await this.getItem(id);
    return item && versioned(item);
  }

  /**
   * The matching books in ascending id order: one Query per key the filter spans (every book shard,
   * or the author's or year's index shards), merged by id. With `limit`, each Query asks for about
   * the share of books its key is expected to hold, and a key's next page is read only when the
   * merge has taken its last book, so a short page costs capacity for those items, not a 1 MB page
   * per key. Without one (a whole list, streamed), each key reads pages of streamPageItems(keys)
   * items, one page ahead of the merge: memory stays within LIST_MERGE_BUDGET_BYTES whatever the
   * catalogue's size, and the merge rarely waits on a read. A caller that stops reads no further.
   */
  iterate(filter: BookFilter, options: ListOptions = {}): AsyncIterable<Book> {
    // DynamoDB refuses an oversized index key with an error; no stored author has one.
    if (filter.author !== undefined && !isStorableKey(authorShardKey(normalizeAuthor(filter.author), 0))) {
      return mergeAscending([], (book: Book) => book.id);
    }
    const queries = this.listQueries(filter);
    const reading =
      options.limit === undefined
        ? { pageSize: streamPageItems(queries.length), readAhead: true }
        : { pageSize: Math.min(options.limit, Math.ceil(options.limit / queries.length) + 1), readAhead: false };
    const sources = queries.map(({ query, startKey }) =>
      this.queryPages(query, options.after === undefined ? undefined : startKey(options.after), reading),
    );
    return take(
      mergeAscending(sources, (book) => book.id),
      options.limit,
    );
  }

  /**
   * The matches counted by the same Queries as `iterate`, with `Select: COUNT`: DynamoDB returns
   * only the number of items of each page (up to 1 MB of items read per call), so nothing is held
   * but the running total. COUNT_KEYS_AT_ONCE keys are counted at a time, and counting stops at
   * the next page once the total reaches `upTo`. Eventually consistent (half the read units of a strongly
   * consistent read): the count sizes a list, it does not promise one. A whole table of n books
   * of b bytes costs about n·b / 1 MB calls (at least one per key) and n·b / 8 KB read units.
   */
  async countUpTo(filter: BookFilter, upTo: number): Promise<number> {
    if (filter.author !== undefined && !isStorableKey(authorShardKey(normalizeAuthor(filter.author), 0))) return 0;
    let total = 0;
    const countKey = async (query: QueryCommandInput) => {
      const input = {
        ...query,
        ...(query.ExpressionAttributeValues && {
          ExpressionAttributeValues: marshall(query.ExpressionAttributeValues),
        }),
        ConsistentRead: false,
        Select: 'COUNT' as const,
      };
      let startKey: Record<string, AttributeValue> | undefined;
      do {
        const { Count, LastEvaluatedKey } = await this.client.send(
          new AttributeValueQueryCommand({ ...input, ...(startKey && { ExclusiveStartKey: startKey }) }),
        );
        total += Count ?? 0;
        startKey = LastEvaluatedKey;
      } while (startKey && total < upTo);
    };
    // A few keys at a time: each call reads up to 1 MB, and 32 of them at once are a burst no
    // list needs (on AWS the count takes a few rounds of tens of milliseconds).
    const queries = this.listQueries(filter).map(({ query }) => query);
    let next = 0;
    const worker = async () => {
      while (next < queries.length && total < upTo) await countKey(queries[next++] as QueryCommandInput);
    };
    await Promise.all(Array.from({ length: Math.min(COUNT_KEYS_AT_ONCE, queries.length) }, worker));
    return Math.min(total, upTo);
  }

  /**
   * One conditional UpdateItem that sets only the changed attributes and returns the new item: the
   * book must exist, keep its ISBN (when one is supplied) and satisfy If-Match. When it fails,
   * DynamoDB returns the item as it was (ReturnValuesOnConditionCheckFailure), which tells a
   * missing book (404) from a changed one (412) from an ISBN that moves, without another read.
   * Only a moving ISBN costs a second call: the transaction that moves its claim.
   */
  async update(id: number, change: BookChange, condition?: VersionCondition): Promise<VersionedBook> {
    const attributes = changedAttributes(id, change);
    return retryOnConflict(`Book ${id}`, async () => {
      const conditions = ['attribute_exists(pk)'];
      const values: Record<string, unknown> = {};
      if (attributes.isbnKey !== undefined) {
        conditions.push('isbnKey = :isbnKey');
        values[':isbnKey'] = attributes.isbnKey;
      }
      conditions.push(...versionConditions(condition, values));
      try {
        const { Attributes } = await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: bookKey(id),
            ...updateExpression(attributes, conditions, values),
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return versioned(Attributes as BookItem);
      } catch (error) {
        if (isTransactionConflict(error)) return new LostRace(error);
        if (!isConditionalCheckFailure(error)) throw error;
        const current = itemAsItWas<BookItem>(error);
        if (!current) throw new BookNotFoundError(id, { cause: error });
        const failed = failedPrecondition(current.version, condition);
        if (failed) throw new PreconditionFailedError(id, current.version, failed, { cause: error });
        // The conditions were checked against this very item: only the ISBN can be what failed.
        return this.moveIsbn(current, attributes);
      }
    });
  }

  async delete(id: number, condition?: VersionCondition): Promise<void> {
    let recordReassigned = false;
    await retryOnConflict(`Book ${id}`, async () => {
      const current = await this.getItem(id);
      if (!current) throw new BookNotFoundError(id);
      const failed = failedPrecondition(current.version, condition);
      if (failed) throw new PreconditionFailedError(id, current.version, failed);
      const record = recordReassigned ? undefined : this.liveRecordOf(current);
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: this.tableName, Key: bookKey(id), ...this.unchangedSince(current) } },
              this.releaseIsbn(current),
              ...(record ? [this.deleteIdempotencyRecord(record, id)] : []),
            ],
          }),
        );
        return undefined;
      } catch (error) {
        const outcome = cancellation(error, 3);
        if (outcome === 'conflict') return new LostRace(error);
        const [bookChanged, claimFailed, recordFailed] = outcome;
        if (bookChanged) return new LostRace(error);
        if (claimFailed)
          throw new StoreInvariantError(`ISBN claim of book ${id} is missing or foreign`, { cause: error });
        // The key expired and another create of its owner took it: that record is no longer this book's.
        recordReassigned = recordFailed === true;
        return new LostRace(error);
      }
    });
  }

  /** The transaction that moves a book's ISBN claim with its change, if the book is still as `current`. */
  private async moveIsbn(current: BookItem, attributes: Record<string, unknown>): Promise<VersionedBook | Retry> {
    const next = { ...current, ...attributes, version: current.version + 1 } as BookItem;
    const { ConditionExpression, ExpressionAttributeValues } = this.unchangedSince(current);
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: bookKey(current.id),
                ...updateExpression(attributes, [ConditionExpression], ExpressionAttributeValues),
              },
            },
            this.releaseIsbn(current),
            this.claimIsbn(next),
          ],
        }),
      );
      return versioned(next);
    } catch (error) {
      const outcome = cancellation(error, 3);
      if (outcome === 'conflict') return new LostRace(error);
      const [bookChanged, , isbnTaken] = outcome;
      if (bookChanged) return new LostRace(error);
      if (isbnTaken) throw new DuplicateIsbnError(next.isbn, { cause: error });
      throw new StoreInvariantError(`ISBN claim of book ${current.id} is missing or foreign`, { cause: error });
    }
  }

  /**
   * The outcome of the request that first used this key: its book as created, or 422 for another
   * body. DynamoDB returns the record with the cancellation; should a reason come without it, one
   * strongly consistent read fetches it (gone by then: the key expired, so run the create again).
   */
  private async replay(record: IdempotencyRecord, fingerprint: string, error: unknown) {
    const returned = (error as TransactionCanceledException).CancellationReasons?.[2]?.Item;
    const held = returned
      ? (unmarshall(returned) as IdempotencyRecord)
      : ((
          await this.client.send(
            new GetCommand({ TableName: this.tableName, Key: { pk: record.pk, sk: 0 }, ConsistentRead: true }),
          )
        ).Item as IdempotencyRecord | undefined);
    if (!held) return new LostRace(error);
    if (held.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError({ cause: error });
    // The record's map comes back in DynamoDB's attribute order: the replay's body must be byte for byte the first one.
    return { book: toBook(held.book), version: held.version };
  }

  private idempotencyRecord(idempotency: IdempotentRequest, book: Book, now: number): IdempotencyRecord {
    return {
      ...idempotencyRecordKey(idempotency.owner, idempotency.key),
      bookId: book.id,
      fingerprint: idempotency.fingerprint,
      book,
      version: 1,
      expiresAt: now + IDEMPOTENCY_KEY_LIFETIME_SECONDS,
    };
  }

  /** DynamoDB's TTL deletes lazily (typically within days): an expired record still stored is free to take. */
  private putIdempotencyRecord(record: IdempotencyRecord, now: number) {
    return {
      Put: {
        TableName: this.tableName,
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
    return idempotencyExpiresAt > this.nowSeconds() ? { pk: idempotencyRecord, sk: 0 } : undefined;
  }

  /** Only while it is still this book's: a missing record (TTL was early) is no reason to refuse the delete. */
  private deleteIdempotencyRecord(key: { pk: string; sk: number }, id: number) {
    return {
      Delete: {
        TableName: this.tableName,
        Key: key,
        ConditionExpression: 'attribute_not_exists(pk) OR bookId = :id',
        ExpressionAttributeValues: { ':id': id },
      },
    };
  }

  private nowSeconds(): number {
    return Math.floor(this.clock() / 1000);
  }

  /** Strongly consistent, straight to the book's own key. */
  private async getItem(id: number): Promise<BookItem | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: bookKey(id), ConsistentRead: true }),
    );
    return Item as BookItem | undefined;
  }

  /**
   * One key's books in ascending id order, a page (an array) at a time as the merge asks for them; with
   * `readAhead`, the next page is requested as soon as the current one arrives.
   *
   * A whole list reads every book once, so each page's cost is what the list's memory is made of:
   * the Query returns only the book's own attributes (not its keys, index keys and version), goes
   * through the plain client in DynamoDB's attribute-value form, and each item becomes a book
   * directly (bookFromAttributes), without the document client's copy of every page.
   */
  private async *queryPages(
    query: QueryCommandInput,
    startKey: Record<string, unknown> | undefined,
    { pageSize, readAhead }: { pageSize: number; readAhead: boolean },
  ): AsyncGenerator<Book[], void, undefined> {
    const input = {
      ...query,
      ...(query.ExpressionAttributeValues && { ExpressionAttributeValues: marshall(query.ExpressionAttributeValues) }),
      ...BOOK_PROJECTION,
      Limit: pageSize,
    };
    const read = (exclusiveStartKey: Record<string, AttributeValue> | undefined) => {
      const page = this.client.send(
        new AttributeValueQueryCommand({
          ...input,
          ...(exclusiveStartKey && { ExclusiveStartKey: exclusiveStartKey }),
        }),
      );
      // A page read ahead for a caller that then stops is never awaited: its failure is nobody's.
      page.catch(() => undefined);
      return page;
    };
    let pending = read(startKey && marshall(startKey));
    while (true) {
      const { Items, LastEvaluatedKey } = await pending;
      const ahead = LastEvaluatedKey && readAhead ? read(LastEvaluatedKey) : undefined;
      yield (Items ?? []).map(bookFromAttributes);
      if (!LastEvaluatedKey) return;
      pending = ahead ?? read(LastEvaluatedKey);
    }
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

const versioned = (item: BookItem): VersionedBook => ({ book: toBook(item), version: Number(item.version) });

/**
 * The preconditions as condition-expression terms over the stored version, their values added to
 * `values`: If-Match as `version IN (…)`, If-None-Match as `NOT version IN (…)`, and If-None-Match `*`
 * as a term no existing item meets (the book must exist too, so such a write never proceeds).
 */
const versionConditions = (condition: VersionCondition | undefined, values: Record<string, unknown>): string[] => {
  const terms: string[] = [];
  const listed = (name: string, versions: readonly number[]) => {
    versions.forEach((version, i) => {
      values[`:${name}${i}`] = version;
    });
    return `version IN (${versions.map((_, i) => `:${name}${i}`).join(', ')})`;
  };
  const { match, noneMatch } = condition ?? {};
  if (match !== undefined && match !== '*') {
    terms.push(listed('ifMatch', match.length > 0 ? match : [0])); // 0: no stored version, so nothing matches
  }
  if (noneMatch === '*') terms.push('attribute_not_exists(pk)');
  else if (noneMatch !== undefined && noneMatch.length > 0) terms.push(`NOT ${listed('ifNoneMatch', noneMatch)}`);
  return terms;
};

/** `SET` of the changed attributes and the next version, under the given conditions. */
const updateExpression = (
  attributes: Record<string, unknown>,
  conditions: string[],
  values: Record<string, unknown>,
) => {
  const names = Object.keys(attributes);
  return {
    UpdateExpression: `SET ${names.map((_, i) => `#a${i} = :a${i}`).join(', ')} ADD version :one`,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#a${i}`, name])),
    ExpressionAttributeValues: {
      ...values,
      ...Object.fromEntries(names.map((name, i) => [`:a${i}`, attributes[name]])),
      ':one': 1,
    },
  };
};

/**
 * The item a failed condition saw (ReturnValuesOnConditionCheckFailure ALL_OLD), undefined when
 * there was none. The document client leaves it in DynamoDB's attribute-value form.
 */
const itemAsItWas = <T>(error: unknown): T | undefined => {
  const item = (error as ConditionalCheckFailedException).Item;
  return item && (unmarshall(item) as T);
};

const isStorableKey = (key: string) => Buffer.byteLength(key, 'utf8') <= MAX_PARTITION_KEY_BYTES;

/** The first `limit` items (all without a limit), stopping the source as soon as they are taken. */
function take<T>(source: AsyncIterable<T>, limit: number | undefined): AsyncIterable<T> {
  return limit === undefined ? source : takeFirst(source, limit);
}

async function* takeFirst<T>(source: AsyncIterable<T>, limit: number): AsyncGenerator<T, void, undefined> {
  if (limit <= 0) return;
  let taken = 0;
  for await (const item of source) {
    yield item;
    if (++taken >= limit) return;
  }
}
