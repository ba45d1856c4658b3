import { type DynamoDBDocumentClient, paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailure } from '../errors';
import {
  type BookItem,
  bookKey,
  bookPartition,
  bookRangeOf,
  ID_BLOCKS_KEY,
  isRangeMark,
  toBookItem,
} from './book-items';
import { AUTHOR_INDEX_TWO_SHARDS, LayoutState, RANGES_LAYOUT } from './layout-state';
import { waitForIndexes } from './table-layout';
import { itemAsItWas } from './update-expressions';

/** Ranges read at once, and between two saved resume points (4,096 books of a dense catalogue). */
const RANGES_AT_ONCE = 8;
const RANGES_PER_STEP = 64;

/** The id-blocks item's attribute holding the first range a resumed run starts from. */
const RESUME_ATTRIBUTE = 'authorIndexFrom';

export interface AuthorKeysReport {
  /** Books whose author keys this run rewrote. */
  rewritten: number;
  /** Books read. */
  read: number;
  /** The range this run started from: above 0 when it resumed an interrupted run. */
  resumedAt: number;
  /** The table already had the mark: this run checked every book again. */
  alreadyComplete: boolean;
  /** The mark is set (false: books remain in the older layout, whose move comes first). */
  marked: boolean;
}

export interface AuthorKeysOptions {
  log?: (line: string) => void;
  /** Ranges between two resume points. */
  rangesPerStep?: number;
  /** How often to ask whether DynamoDB has built the index (waitForIndexes). */
  indexPollMs?: number;
}

/** The index keys a book should carry; compared and written by the migration, reported by data:check. */
export const expectedAuthorKeys = (item: BookItem): Pick<BookItem, 'authorShard' | 'yearId'> => {
  const { authorShard, yearId } = toBookItem(item, 1);
  return { authorShard, yearId };
};

export const hasExpectedAuthorKeys = (item: BookItem): boolean => {
  const expected = expectedAuthorKeys(item);
  return item.authorShard === expected.authorShard && item.yearId === expected.yearId;
};

/**
 * Gives every book its two-shard author key and its author-and-year key (book-items.ts), while the
 * service runs, then marks the id-blocks item (AUTHOR_INDEX_TWO_SHARDS): from then on a page
 * filtered by author, or by author and year, reads two keys. Until the mark, lists read the older
 * sixteen author keys, which include the two new ones, so no book is missed meanwhile.
 *
 * Each book is rewritten by one UpdateItem that only holds at the version read: a book the service
 * changed meanwhile is taken again as it now is (the service writes the new keys of what it changes).
 * Neither the version nor updatedAt moves: the book is not changed, only where the index finds it.
 * Resumable: every RANGES_PER_STEP ranges the id-blocks item records where to start again. Idempotent:
 * a book that has its keys is not written; a run on a marked table checks every book again and
 * repairs any (a rollback to a version before this one writes older keys). Run it after this
 * version is deployed everywhere (a container of an older version writes the older keys).
 */
export const completeAuthorKeys = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  { log = () => undefined, rangesPerStep = RANGES_PER_STEP, indexPollMs }: AuthorKeysOptions = {},
): Promise<AuthorKeysReport> => {
  const layout = new LayoutState();
  const { item: counter, authorPairs: alreadyComplete, migrated } = await layout.refresh({ client, tableName });
  const resumedAt = alreadyComplete ? 0 : Number(counter?.[RESUME_ATTRIBUTE] ?? 0);
  const report: AuthorKeysReport = { rewritten: 0, read: 0, resumedAt, alreadyComplete, marked: false };
  if (!migrated && counter?.highMark !== undefined) {
    // Books in the older layout get this version's keys when they move (data:migrate-layout's first steps).
    log('author keys: not yet: books remain in the older layout (npm run data:migrate-layout moves them first)');
    return report;
  }
  if (resumedAt > 0) log(`author keys: resuming at range ${resumedAt}`);
  // Until the high mark stops moving into ranges this run has not read (books created meanwhile have their keys anyway).
  for (let from = resumedAt; ; ) {
    const { highMark } = await layout.refresh({ client, tableName });
    const last = highMark > 0 ? bookRangeOf(highMark) : -1;
    if (last < from) break;
    for (let step = from; step <= last; step += rangesPerStep) {
      const end = Math.min(last + 1, step + rangesPerStep);
      await forEachRange(step, end, (range) => rewriteRange(client, tableName, range, report));
      await client
        .send(
          new UpdateCommand({
            TableName: tableName,
            Key: ID_BLOCKS_KEY,
            UpdateExpression: `SET ${RESUME_ATTRIBUTE} = :end`,
            ConditionExpression: 'attribute_not_exists(authorIndex)',
            ExpressionAttributeValues: { ':end': end },
          }),
        )
        .catch((error: unknown) => {
          if (!isConditionalCheckFailure(error)) throw error; // marked already: nothing to resume
        });
      log(
        `author keys: ranges ${step}–${end - 1} of ${last} done (${report.read} books read, ${report.rewritten} rewritten)`,
      );
    }
    from = last + 1;
  }
  // Marked, the service reads the author-and-year index: it must be built.
  await waitForIndexes(client, tableName, { log, ...(indexPollMs !== undefined && { pollMs: indexPollMs }) });
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: ID_BLOCKS_KEY,
      UpdateExpression: `SET authorIndex = :twoShards REMOVE ${RESUME_ATTRIBUTE}`,
      // Books still in the older layout carry older keys: that layout's move comes first. A table
      // that has reserved no id yet holds no book in any layout.
      ConditionExpression: '#layout = :ranges OR attribute_not_exists(highMark)',
      ExpressionAttributeNames: { '#layout': 'layout' },
      ExpressionAttributeValues: { ':twoShards': AUTHOR_INDEX_TWO_SHARDS, ':ranges': RANGES_LAYOUT },
    }),
  );
  report.marked = true;
  return report;
};

const forEachRange = async (from: number, to: number, run: (range: number) => Promise<void>) => {
  let next = from;
  const worker = async () => {
    while (next < to) await run(next++);
  };
  await Promise.all(Array.from({ length: Math.min(RANGES_AT_ONCE, to - from) }, worker));
};

const rewriteRange = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  range: number,
  report: AuthorKeysReport,
) => {
  const pages = paginateQuery(
    { client },
    {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': bookPartition(range) },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of (page.Items ?? []) as BookItem[]) {
      if (isRangeMark(item as unknown as Record<string, unknown>) || typeof item.id !== 'number') continue;
      report.read++;
      if (await rewriteBook(client, tableName, item)) report.rewritten++;
    }
  }
};

/** True when this call wrote the book's keys; false when it had them, got them from the service, or is gone. */
const rewriteBook = async (client: DynamoDBDocumentClient, tableName: string, read: BookItem): Promise<boolean> => {
  for (let item: BookItem | undefined = read; item !== undefined && !hasExpectedAuthorKeys(item); ) {
    const { authorShard, yearId } = expectedAuthorKeys(item);
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: bookKey(item.id),
          UpdateExpression: 'SET authorShard = :authorShard, yearId = :yearId',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':authorShard': authorShard, ':yearId': yearId, ':version': item.version },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      item = itemAsItWas<BookItem>(error); // changed meanwhile (or deleted: undefined)
    }
  }
  return false;
};
