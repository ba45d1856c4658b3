import { type AttributeValue, QueryCommand as AttributeValueQueryCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { normalizeAuthor } from '../../books/normalize';
import type { Book, BookFilter } from '../../books/types';
import {
  AUTHOR_SHARDS,
  authorShardKey,
  BOOK_PROJECTION,
  BY_AUTHOR_INDEX,
  BY_AUTHOR_YEAR_INDEX,
  BY_YEAR_INDEX,
  bookFromAttributes,
  bookKey,
  OLDER_AUTHOR_SHARDS,
  shards,
  YEAR_SHARDS,
  yearIdKey,
  yearIdPrefix,
  yearShardKey,
} from './book-items';

/** A Query over one key, and the key it resumes after for a cursor's id. */
export interface KeyQuery {
  query: QueryCommandInput;
  startKey: (after: number) => Record<string, unknown>;
}

/** The Query for the plain client: its values in DynamoDB's attribute-value form. */
export const attributeValueForm = (query: QueryCommandInput) => ({
  ...query,
  ...(query.ExpressionAttributeValues && { ExpressionAttributeValues: marshall(query.ExpressionAttributeValues) }),
});

/**
 * A Query per index key a filter spans, each with the key it resumes after for a cursor's id: the
 * table's key plus the index's key, which follow from the filter and the id. So a cursor need carry
 * only the id, and the book need not exist any more.
 * - author (`authorPairs`: every book has its two-shard keys): the author's AUTHOR_SHARDS keys;
 * - author and year (`authorPairs`): the same keys in the author-and-year index, only that year's
 *   part of each (its sort key's prefix), so every item read is a match;
 * - either, before the mark: the OLDER_AUTHOR_SHARDS keys the author was spread over (they include
 *   the two-shard keys, so books written meanwhile are found too), the year as a filter;
 * - year alone: its YEAR_SHARDS keys.
 */
export const indexQueries = (
  { tableName }: { tableName: string },
  { author, year }: BookFilter,
  { authorPairs }: { authorPairs: boolean },
): KeyQuery[] => {
  const base = { TableName: tableName, ScanIndexForward: true };
  if (author !== undefined) {
    const authorKey = normalizeAuthor(author);
    if (authorPairs && year !== undefined) {
      return shards(AUTHOR_SHARDS).map((shard) => ({
        query: {
          ...base,
          IndexName: BY_AUTHOR_YEAR_INDEX,
          KeyConditionExpression: 'authorShard = :author AND begins_with(yearId, :year)',
          ExpressionAttributeValues: { ':author': authorShardKey(authorKey, shard), ':year': yearIdPrefix(year) },
        },
        startKey: (after: number) => ({
          ...bookKey(after),
          authorShard: authorShardKey(authorKey, shard),
          yearId: yearIdKey(year, after),
        }),
      }));
    }
    return shards(authorPairs ? AUTHOR_SHARDS : OLDER_AUTHOR_SHARDS).map((shard) => ({
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
  return shards(YEAR_SHARDS).map((shard) => ({
    query: {
      ...base,
      IndexName: BY_YEAR_INDEX,
      KeyConditionExpression: 'yearShard = :year',
      ExpressionAttributeValues: { ':year': yearShardKey(year as number, shard) },
    },
    startKey: (after: number) => ({ ...bookKey(after), yearShard: yearShardKey(year as number, shard) }),
  }));
};

/**
 * One key's books in ascending id order, a page (an array) at a time as the merge asks for them; with
 * `readAhead`, the next page is requested as soon as the current one arrives.
 *
 * A whole list reads every book once, so each page's cost is what the list's memory is made of:
 * the Query returns only the book's own attributes (not its keys, index keys and version), goes
 * through the plain client in DynamoDB's attribute-value form, and each item becomes a book
 * directly (bookFromAttributes), without the document client's copy of every page.
 */
export async function* queryPages(
  { client }: { client: DynamoDBDocumentClient },
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
