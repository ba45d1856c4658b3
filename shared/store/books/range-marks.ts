import { BatchWriteCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { bookRangeOf, ID_BLOCKS_KEY, rangeMarkItem } from './book-items';
import { LayoutState, RANGE_MARKS_COMPLETE } from './layout-state';

const BATCH = 25; // BatchWriteItem's maximum
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The end marks of ranges `from` to `to` − 1 (an idempotent put each), for loaders that raise the high mark themselves. */
export const putRangeMarks = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  from: number,
  to: number,
): Promise<number> => {
  for (let start = from; start < to; start += BATCH) {
    let requests = Array.from({ length: Math.min(BATCH, to - start) }, (_, i) => ({
      PutRequest: { Item: rangeMarkItem(start + i) },
    }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 20 * 2 ** attempt));
      const { UnprocessedItems } = await client.send(
        new BatchWriteCommand({ RequestItems: { [tableName]: requests } }),
      );
      requests = (UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
  }
  return Math.max(0, to - from);
};

/**
 * Gives every range opened before end marks existed its mark, then marks the counter: from then on
 * the unfiltered list ends where a range has no mark, without reading the counter. Idempotent and
 * resumable (marks are plain puts; the counter is marked last); run again, it repairs a lost mark. Run once every container writes
 * marks itself (this version deployed): ranges opened meanwhile by this version carry their own.
 */
export const completeRangeMarks = async (
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<{ marked: number; alreadyComplete: boolean }> => {
  const layout = new LayoutState();
  // Marks are written again on a table marked complete too: a mark lost to an older container
  // (one that opened a range before this version ran everywhere) comes back.
  const { rangeMarks: alreadyComplete } = await layout.refresh({ client, tableName });
  let marked = 0;
  // Until the high mark stops moving into new ranges while this runs, mark the ranges it has passed.
  for (let done = 0; ; ) {
    const { highMark } = await layout.refresh({ client, tableName });
    const opened = highMark > 0 ? bookRangeOf(highMark) : 0;
    if (opened <= done) break;
    marked += await putRangeMarks(client, tableName, done, opened);
    done = opened;
  }
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: ID_BLOCKS_KEY,
      UpdateExpression: 'SET rangeMarks = :complete',
      ExpressionAttributeValues: { ':complete': RANGE_MARKS_COMPLETE },
    }),
  );
  return { marked, alreadyComplete };
};
