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
/** How often a container that has not seen the author keys' mark reads the id-blocks item again for it. */
const AUTHOR_PAIRS_RECHECK_MS = 60_000;

/** Strongly consistent, straight to the book's own key; a miss asks the older layout (older-layout.ts). */
export const readBookItem = async (context: BookStoreContext, id: number): Promise<BookItem | undefined> => {
  const { Item } = await context.client.send(
    new GetCommand({ TableName: context.tableName, Key: bookKey(id), ConsistentRead: true }),
  );
  return (Item as BookItem | undefined) ?? context.olderLayout.find(id);
};

/**
 * The matching books in ascending id order. Unfiltered: a walk of the id ranges (range-walk.ts).
 * Filtered: one Query per index key of the author or year (filterQueries), merged by id; with
 * `limit`, each of two keys asks for the whole page (so a page is two calls, however the matches
 * fall), each of more keys about its share, reading its next page only when the merge has taken
 * its last book. Without a limit (a whole list, streamed), each key reads pages one ahead of the merge,
 * sized so that memory stays within LIST_MERGE_BUDGET_BYTES whatever the catalogue's size. A caller
 * that stops reads no further. While the older layout remains, its shards join the merge; a book
 * copied meanwhile comes once (the current layout's item first).
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
  return take(onceEach(books), options.limit);
};

async function* filteredBooks(context: BookStoreContext, filter: BookFilter, options: ListOptions) {
  yield* mergeKeys(context, await filterQueries(context, filter), options, []);
}

/**
 * The index Queries of a filter. A filter by author needs to know whether every book has its
 * two-shard keys (the id-blocks item's mark): a container that has not read that item reads it
 * once, and again at most once a minute until it sees the mark, which never reverts.
 */
const filterQueries = async (context: BookStoreContext, filter: BookFilter): Promise<KeyQuery[]> => {
  const { layout } = context;
  if (filter.author !== undefined && layout.shouldLookForAuthorPairs(Date.now(), AUTHOR_PAIRS_RECHECK_MS)) {
    await layout.refresh(context);
  }
  return indexQueries(context, filter, { authorPairs: layout.authorPairs });
};

async function* unfilteredBooks(context: BookStoreContext, options: ListOptions): AsyncGenerator<Book> {
  // A container that has not read the counter yet, or that has not seen the older layout gone, reads it
  // once: that read also tells the walk where ids end and whether end marks are complete, so the walk
  // never repeats it.
  const { layout, olderLayout } = context;
  const read = olderLayout.mayRemain() || !layout.counterRead ? await layout.refresh(context) : undefined;
  const keys = olderLayout.extraQueries();
  const walk = rangePages(context, {
    after: options.after,
    limit: options.limit,
    pageSize: options.limit ?? streamPageItems(1 + keys.length),
    readAhead: options.limit === undefined,
    idBlocksRead: read !== undefined,
  });
  yield* mergeKeys(context, keys, options, [walk]);
}

/** The books of `queries` (and of already running `sources`, which go first on equal ids) merged by id. */
const mergeKeys = (
  context: BookStoreContext,
  queries: KeyQuery[],
  options: ListOptions,
  sources: AsyncIterable<Book[]>[],
) => {
  const keys = queries.length + sources.length;
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
  return mergeAscending([...sources, ...pages], (book) => book.id);
};

/**
 * The matches counted with `Select: COUNT`, over the same keys as `iterateBooks` (every id range up
 * to the id-blocks item's high mark, or the filter's index keys): DynamoDB returns only the number of
 * items of each page (up to 1 MB read per call), so nothing is held but the running total. Ranges
 * are small (BOOK_RANGE_SIZE books) and many, so RANGES_AT_ONCE are counted at a time; index shards
 * are few and large, COUNT_KEYS_AT_ONCE at a time. Counting stops at the next page once the total
 * reaches `upTo`. Eventually consistent (half the read units of a strongly consistent read): the
 * count sizes a list, it does not promise one; while a table migrates, a book copied but not yet
 * removed from the older layout counts twice. Unfiltered, n books cost one call per range
 * (n / 64 for a dense catalogue) and n·b / 8 KB read units for books of b bytes.
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
  const queries = filtered
    ? (await filterQueries(context, filter)).map(({ query }) => query)
    : await countedRanges(context);
  let next = 0;
  const worker = async () => {
    while (next < queries.length && total < upTo) await countKey(queries[next++] as QueryCommandInput);
  };
  const atOnce = filtered ? COUNT_KEYS_AT_ONCE : RANGES_AT_ONCE;
  await Promise.all(Array.from({ length: Math.min(atOnce, queries.length) }, worker));
  return Math.min(total, upTo);
};

/** Every id range up to the id-blocks item's high mark, and the older layout's shards while they remain. */
const countedRanges = async (context: BookStoreContext): Promise<QueryCommandInput[]> => {
  const { highMark } = await context.layout.refresh(context);
  const ranges = Array.from({ length: bookRangeOf(highMark) + 1 }, (_, range) => ({
    TableName: context.tableName,
    KeyConditionExpression: 'pk = :pk',
    // A range's end mark is no book (COUNT counts what passes the filter).
    FilterExpression: 'attribute_exists(id)',
    ExpressionAttributeValues: { ':pk': bookPartition(range) },
  }));
  return [...ranges, ...context.olderLayout.extraQueries().map(({ query }) => query)];
};

const isStorableFilter = ({ author }: BookFilter) =>
  author === undefined ||
  Buffer.byteLength(authorShardKey(normalizeAuthor(author), 0), 'utf8') <= MAX_PARTITION_KEY_BYTES;

/** Each id once: a book met in two sources (both layouts, while a table migrates) comes from the first. */
async function* onceEach(books: AsyncIterable<Book>): AsyncGenerator<Book, void, undefined> {
  let last: number | undefined;
  for await (const book of books) {
    if (book.id === last) continue;
    last = book.id;
    yield book;
  }
}

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
