import { BatchWriteCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Book } from '../shared/books/types';
import { bookRangeOf, ID_BLOCKS_KEY, rangeMarkItem, toBookItem } from '../shared/store/books/book-items';
import { isConditionalCheckFailure } from '../shared/store/errors';

const BATCH = 25; // BatchWriteItem's maximum

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Writes books with ids `from..to` (inclusive) as the store stores them, 25 per BatchWriteItem and
 * `parallel` batches in flight, retrying unprocessed items. A bulk load, not the API: no ISBN
 * claims (the list queries measured never read them); the id-blocks item's high mark is raised to `to`,
 * since a list walks the id ranges up to it.
 */
export const seedBooks = async (
  client: DynamoDBDocumentClient,
  table: string,
  from: number,
  to: number,
  make: (id: number) => Book,
  options: {
    parallel?: number;
    onProgress?: (written: number) => void;
    /** The item written for a book; by default as this version stores it (an older version's keys, for a before). */
    item?: (book: Book) => Record<string, unknown>;
  } = {},
): Promise<void> => {
  let next = from;
  let written = 0;
  const itemOf = options.item ?? ((book: Book) => ({ ...toBookItem(book, 1) }));
  const worker = async () => {
    while (next <= to) {
      const start = next;
      next = Math.min(to + 1, next + BATCH);
      let requests: { PutRequest: { Item: Record<string, unknown> } }[] = Array.from(
        { length: next - start },
        (_, i) => ({ PutRequest: { Item: itemOf(make(start + i)) } }),
      );
      for (let attempt = 0; requests.length > 0; attempt++) {
        const { UnprocessedItems } = await client.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
        requests = (UnprocessedItems?.[table] ?? []) as typeof requests;
        if (requests.length > 0) await sleep(Math.min(1000, 20 * 2 ** attempt));
      }
      written += BATCH;
      options.onProgress?.(Math.min(written, to - from + 1));
    }
  };
  await Promise.all(Array.from({ length: options.parallel ?? 8 }, worker));
  await raiseHighMark(client, table, to);
};

/** The end marks of ranges `from` to `to` − 1 (an idempotent put each), as the reservations that opened later ranges write them. */
const putRangeMarks = async (client: DynamoDBDocumentClient, table: string, from: number, to: number) => {
  for (let start = from; start < to; start += BATCH) {
    let requests = Array.from({ length: Math.min(BATCH, to - start) }, (_, i) => ({
      PutRequest: { Item: rangeMarkItem(start + i) },
    }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 20 * 2 ** attempt));
      const { UnprocessedItems } = await client.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
      requests = (UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  }
};

/** The id-blocks item's high mark at least `to`, as if the ids had been reserved (an existing higher mark stays). */
const raiseHighMark = async (client: DynamoDBDocumentClient, table: string, to: number): Promise<void> => {
  // The ranges the mark passes get their end marks first, as a reservation would write them.
  await putRangeMarks(client, table, 0, bookRangeOf(to));
  try {
    await client.send(
      new UpdateCommand({
        TableName: table,
        Key: ID_BLOCKS_KEY,
        UpdateExpression: 'SET highMark = :to',
        ConditionExpression: 'attribute_not_exists(highMark) OR highMark < :to',
        ExpressionAttributeValues: { ':to': to },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailure(error)) throw error;
  }
};
