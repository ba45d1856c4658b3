import { type AttributeValue, QueryCommand as AttributeValueQueryCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { normalizeAuthor } from '../../books/normalize';
import type { ListOptions } from '../../books/ports';
import type { Book, BookFilter } from '../../books/types';
import {
  authorShardKey,
  type BookItem,
  bookKey,
  bookPartition,
  bookRangeOf,
  MAX_PARTITION_KEY_BYTES,
  streamPageItems,
} from './book-items';
import type { BookStoreContext } from './book-store-context';
import { attributeValueForm, indexQueries, type KeyQuery, queryPages } from './key-queries';
import { rangePages } from './range-walk';
import { mergeAscending } from './sorted-merge';

/** Index shards and id ranges a count reads at once (see countBooks). */
const COUNT_KEYS_AT_ONCE = 4;
const RANGES_AT_ONCE = 16;

/** Strongly consistent, straight to the book's own key. */
export const readBookItem = async (context: BookStoreContext, id: number): Promise<BookItem | undefined> => {
  const { Item } = await context.client.send(
    new GetCommand({ TableName: context.tableName, Key: bookKey(id), ConsistentRead: true }),
  );
  return Item as BookItem | undefined;
};

/**
 * The matching books in ascending id order: unfiltered, a walk of the id ranges (range-walk.ts);
 * filtered, one Query per index key merged by id, pages sized as mergeKeys says. A caller that
 * stops reads no further.
 */
export const iterateBooks = (
  context: BookStoreContext,
  filter: BookFilter,
  options: ListOptions = {},
): AsyncIterable<Book> => {
  // DynamoDB refuses an oversized index key with an error; no stored author has one.
  if (!isStorableFilter(filter)) return mergeAscending([], (book: Book) => book.id);
  const books =
    filter.author === undefined && filter.year === undefined
      ? unfilteredBooks(context, options)
      : filteredBooks(context, filter, options);
  return take(books, options.limit);
};

async function* filteredBooks(context: BookStoreContext, filter: BookFilter, options: ListOptions) {
  yield* mergeKeys(context, indexQueries(context, filter), options);
}

async function* unfilteredBooks(context: BookStoreContext, options: ListOptions): AsyncGenerator<Book> {
  const pages = rangePages(context, {
    after: options.after,
    limit: options.limit,
    pageSize: options.limit ?? streamPageItems(1),
    readAhead: options.limit === undefined,
  });
  for await (const page of pages) yield* page;
}

/**
 * The books of `queries` merged by id. With `limit`, each of two keys asks for the whole page (a
 * page is two calls however the matches fall), each of more keys about its share; without one,
 * each key reads a page ahead, sized to stay within LIST_MERGE_BUDGET_BYTES.
 */
const mergeKeys = (context: BookStoreContext, queries: KeyQuery[], options: ListOptions) => {
  const keys = queries.length;
  const reading =
    options.limit === undefined
      ? { pageSize: streamPageItems(keys), readAhead: true }
      : {
          pageSize: keys <= 2 ? options.limit : Math.min(options.limit, Math.ceil(options.limit / keys) + 1),
          readAhead: false,
        };
  const pages = queries.map(({ query, startKey }) =>
    queryPages(context, query, options.after === undefined ? undefined : startKey(options.after), reading),
  );
  return mergeAscending(pages, (book) => book.id);
};

/**
 * The matches counted with `Select: COUNT` over the keys `iterateBooks` reads, holding nothing but
 * the total and stopping once it reaches `upTo`. Eventually consistent: the count sizes a list, it
 * promises none (docs/data-model.md has its cost).
 */
export const countBooks = async (context: BookStoreContext, filter: BookFilter, upTo: number): Promise<number> => {
  if (!isStorableFilter(filter)) return 0;
  let total = 0;
  const countKey = async (query: QueryCommandInput) => {
    const input = { ...attributeValueForm(query), ConsistentRead: false, Select: 'COUNT' as const };
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const { Count, LastEvaluatedKey } = await context.client.send(
        new AttributeValueQueryCommand({ ...input, ...(startKey && { ExclusiveStartKey: startKey }) }),
      );
      total += Count ?? 0;
      startKey = LastEvaluatedKey;
    } while (startKey && total < upTo);
  };
  const filtered = filter.author !== undefined || filter.year !== undefined;
  const queries = filtered ? indexQueries(context, filter).map(({ query }) => query) : await countedRanges(context);
  let next = 0;
  const worker = async () => {
    while (next < queries.length && total < upTo) await countKey(queries[next++] as QueryCommandInput);
  };
  const atOnce = filtered ? COUNT_KEYS_AT_ONCE : RANGES_AT_ONCE;
  await Promise.all(Array.from({ length: Math.min(atOnce, queries.length) }, worker));
  return Math.min(total, upTo);
};

/** Every id range up to the id-blocks item's high mark. */
const countedRanges = async (context: BookStoreContext): Promise<QueryCommandInput[]> => {
  const { highMark } = await context.idBlocks.refresh(context);
  return Array.from({ length: bookRangeOf(highMark) + 1 }, (_, range) => ({
    TableName: context.tableName,
    KeyConditionExpression: 'pk = :pk',
    // A range's end mark is no book (COUNT counts what passes the filter).
    FilterExpression: 'attribute_exists(id)',
    ExpressionAttributeValues: { ':pk': bookPartition(range) },
  }));
};

const isStorableFilter = ({ author }: BookFilter) =>
  author === undefined ||
  Buffer.byteLength(authorShardKey(normalizeAuthor(author), 0), 'utf8') <= MAX_PARTITION_KEY_BYTES;

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
