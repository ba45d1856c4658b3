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
 * A Query per index key a filter spans, each with the key it resumes after for a cursor's id (which
 * follows from the filter and the id, so a cursor carries only the id): an author's AUTHOR_SHARDS
 * keys, with a year only that year's part of each in the author-and-year index; a year's YEAR_SHARDS keys.
 */
export const indexQueries = ({ tableName }: { tableName: string }, { author, year }: BookFilter): KeyQuery[] => {
  const base = { TableName: tableName, ScanIndexForward: true };
  if (author !== undefined) {
    const authorKey = normalizeAuthor(author);
    if (year !== undefined) {
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
    return shards(AUTHOR_SHARDS).map((shard) => ({
      query: {
        ...base,
        IndexName: BY_AUTHOR_INDEX,
        KeyConditionExpression: 'authorShard = :author',
        ExpressionAttributeValues: { ':author': authorShardKey(authorKey, shard) },
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
 * One key's books in ascending id order, a page at a time as the merge asks (with `readAhead`, the
 * next page is requested as soon as one arrives). The plain client and the projection keep a whole
 * list's memory to the books themselves.
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
