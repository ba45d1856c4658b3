import { type AttributeValue, QueryCommand as AttributeValueQueryCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { normalizeAuthor } from '../books/normalize';
import type { ListOptions } from '../books/ports';
import type { Book, BookFilter } from '../books/types';
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
  INDEX_SHARDS,
  MAX_PARTITION_KEY_BYTES,
  shards,
  streamPageItems,
  yearShardKey,
} from './book-items';
import type { BookStoreContext } from './book-store-context';
import { mergeAscending } from './sorted-merge';

/** Keys a count reads at once (see countBooks). */
const COUNT_KEYS_AT_ONCE = 4;

/** Strongly consistent, straight to the book's own key. */
export const readBookItem = async ({ client, tableName }: BookStoreContext, id: number) => {
  const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: bookKey(id), ConsistentRead: true }));
  return Item as BookItem | undefined;
};

/**
 * The matching books in ascending id order: one Query per key the filter spans (every book shard,
 * or the author's or year's index shards), merged by id. With `limit`, each Query asks for about
 * the share of books its key is expected to hold, and a key's next page is read only when the
 * merge has taken its last book, so a short page costs capacity for those items, not a 1 MB page
 * per key. Without one (a whole list, streamed), each key reads pages of streamPageItems(keys)
 * items, one page ahead of the merge: memory stays within LIST_MERGE_BUDGET_BYTES whatever the
 * catalogue's size, and the merge rarely waits on a read. A caller that stops reads no further.
 */
export const iterateBooks = (
  context: BookStoreContext,
  filter: BookFilter,
  options: ListOptions = {},
): AsyncIterable<Book> => {
  // DynamoDB refuses an oversized index key with an error; no stored author has one.
  if (!isStorableFilter(filter)) return mergeAscending([], (book: Book) => book.id);
  const queries = listQueries(context, filter);
  const reading =
    options.limit === undefined
      ? { pageSize: streamPageItems(queries.length), readAhead: true }
      : { pageSize: Math.min(options.limit, Math.ceil(options.limit / queries.length) + 1), readAhead: false };
  const sources = queries.map(({ query, startKey }) =>
    queryPages(context, query, options.after === undefined ? undefined : startKey(options.after), reading),
  );
  return take(
    mergeAscending(sources, (book) => book.id),
    options.limit,
  );
};

/**
 * The matches counted by the same Queries as `iterateBooks`, with `Select: COUNT`: DynamoDB returns
 * only the number of items of each page (up to 1 MB of items read per call), so nothing is held
 * but the running total. COUNT_KEYS_AT_ONCE keys are counted at a time, and counting stops at
 * the next page once the total reaches `upTo`. Eventually consistent (half the read units of a strongly
 * consistent read): the count sizes a list, it does not promise one. A whole table of n books
 * of b bytes costs about n·b / 1 MB calls (at least one per key) and n·b / 8 KB read units.
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
  // A few keys at a time: each call reads up to 1 MB, and 32 of them at once are a burst no
  // list needs (on AWS the count takes a few rounds of tens of milliseconds).
  const queries = listQueries(context, filter).map(({ query }) => query);
  let next = 0;
  const worker = async () => {
    while (next < queries.length && total < upTo) await countKey(queries[next++] as QueryCommandInput);
  };
  await Promise.all(Array.from({ length: Math.min(COUNT_KEYS_AT_ONCE, queries.length) }, worker));
  return Math.min(total, upTo);
};

const isStorableFilter = ({ author }: BookFilter) =>
  author === undefined ||
  Buffer.byteLength(authorShardKey(normalizeAuthor(author), 0), 'utf8') <= MAX_PARTITION_KEY_BYTES;

/** The Query for the plain client: its values in DynamoDB's attribute-value form. */
const attributeValueForm = (query: QueryCommandInput) => ({
  ...query,
  ...(query.ExpressionAttributeValues && { ExpressionAttributeValues: marshall(query.ExpressionAttributeValues) }),
});

/**
 * One key's books in ascending id order, a page (an array) at a time as the merge asks for them; with
 * `readAhead`, the next page is requested as soon as the current one arrives.
 *
 * A whole list reads every book once, so each page's cost is what the list's memory is made of:
 * the Query returns only the book's own attributes (not its keys, index keys and version), goes
 * through the plain client in DynamoDB's attribute-value form, and each item becomes a book
 * directly (bookFromAttributes), without the document client's copy of every page.
 */
async function* queryPages(
  { client }: BookStoreContext,
  query: QueryCommandInput,
  startKey: Record<string, unknown> | undefined,
  { pageSize, readAhead }: { pageSize: number; readAhead: boolean },
): AsyncGenerator<Book[], void, undefined> {
  const input = { ...attributeValueForm(query), ...BOOK_PROJECTION, Limit: pageSize };
  const read = (exclusiveStartKey: Record<string, AttributeValue> | undefined) => {
    const page = client.send(
      new AttributeValueQueryCommand({ ...input, ...(exclusiveStartKey && { ExclusiveStartKey: exclusiveStartKey }) }),
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
const listQueries = ({ tableName }: BookStoreContext, { author, year }: BookFilter) => {
  const base = { TableName: tableName, ScanIndexForward: true };
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
};

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
