import { BatchWriteCommand, type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { BookItem } from '../book-items';
import { LayoutState, markRangesLayout } from '../layout-state';
import type { MoveOptions, OlderBooksMoved } from '../older-layout';
import { copyLegacyBook, LEGACY_BOOK_SHARDS, legacyBookPartition, readLegacyBookItem } from './legacy-layout';

const BATCH = 25; // BatchWriteItem's maximum
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Moves a books table's books out of the older `BOOK#<id mod 32>` layout while the service runs, in
 * three steps that a re-run after an interruption simply repeats (each skips what is done):
 * 1. every older book not yet copied is copied by one transaction (legacy-layout.ts: the new item
 *    only if absent, the old one only at the version read, its index keys removed); the old item
 *    stays, so a list that read the new layout before the copy still finds the book in the old;
 * 2. the counter item is marked: from then on the service reads the range layout only;
 * 3. after `graceMs`, the older items are deleted.
 * No book is lost (each exists in one layout or both at every moment) or duplicated (a list merging
 * both layouts keeps one of each id; the indexes hold only the copy).
 * @deprecated Goes with this folder once every table has migrated (docs/upgrade.md).
 */
export const moveOlderBooks = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  { graceMs, log }: MoveOptions,
): Promise<OlderBooksMoved> => {
  const table = { client, tableName };
  const moved: OlderBooksMoved = { copied: 0, alreadyCopied: 0, removed: 0 };
  if (!(await new LayoutState().refresh(table)).migrated) {
    for (let shard = 0; shard < LEGACY_BOOK_SHARDS; shard++) {
      for await (const item of olderItems(client, tableName, shard)) {
        if (item.authorShard === undefined) moved.alreadyCopied++;
        else if (await copyUntilDone(table, item)) moved.copied++;
      }
      log(
        `copy: shard ${shard + 1} of ${LEGACY_BOOK_SHARDS} done (${moved.copied} copied, ${moved.alreadyCopied} found copied)`,
      );
    }
    await client.send(markRangesLayout(tableName));
    log(`marked: the service now reads the range layout only; deleting the older items in ${graceMs} ms`);
    await sleep(graceMs);
  }
  for (let shard = 0; shard < LEGACY_BOOK_SHARDS; shard++) {
    let keys: { pk: string; sk: number }[] = [];
    const flush = async () => {
      let requests = keys.map((Key) => ({ DeleteRequest: { Key } }));
      while (requests.length > 0) {
        const { UnprocessedItems } = await client.send(
          new BatchWriteCommand({ RequestItems: { [tableName]: requests } }),
        );
        requests = (UnprocessedItems?.[tableName] ?? []) as typeof requests;
      }
      moved.removed += keys.length;
      keys = [];
    };
    for await (const item of olderItems(client, tableName, shard)) {
      keys.push({ pk: item.pk, sk: item.sk });
      if (keys.length === BATCH) await flush();
    }
    await flush();
  }
  log(`removed: ${moved.removed} older items`);
  return moved;
};

async function* olderItems(client: DynamoDBDocumentClient, tableName: string, shard: number) {
  const pages = paginateQuery(
    { client },
    {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': legacyBookPartition(shard) },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) yield* (page.Items ?? []) as BookItem[];
}

/** Copies one book, reading it again when the service changed or deleted it meanwhile; false when it is gone or was copied by the service. */
const copyUntilDone = async (
  table: { client: DynamoDBDocumentClient; tableName: string },
  read: BookItem,
): Promise<boolean> => {
  let item: BookItem | undefined = read;
  while (item?.authorShard !== undefined) {
    const outcome = await copyLegacyBook(table, item);
    if (outcome === 'copied') return true;
    if (outcome === 'already-copied') return false;
    item = await readLegacyBookItem(table, read.id);
  }
  return false;
};
