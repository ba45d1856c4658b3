import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { completeAuthorKeys } from '../shared/store/books/author-keys';
import type { BookItem } from '../shared/store/books/book-items';
import { openOlderLayout } from '../shared/store/books/dynamodb-book-store';
import { LayoutState, markRangesLayout } from '../shared/store/books/layout-state';
import type { OlderLayout } from '../shared/store/books/older-layout';
import { completeRangeMarks } from '../shared/store/books/range-marks';

export interface MigrationReport {
  /** Books copied to the range layout by this run. */
  copied: number;
  /** Older items this run found copied already (by an earlier run, or by the service writing the book). */
  alreadyCopied: number;
  /** Older items deleted once the table was marked migrated. */
  removed: number;
  /** End marks written for ranges opened before the service wrote them (0 once the table has them all). */
  rangeMarks: number;
  /** Books given their two-shard author keys and author-and-year key by this run (author-keys.ts). */
  authorKeys: number;
}

export interface MigrationOptions {
  /** How long to wait between marking the table and deleting the older items: lists begun before the mark end first. */
  graceMs: number;
  log?: (line: string) => void;
}

const BATCH = 25; // BatchWriteItem's maximum
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Moves a books table from the older `BOOK#<id mod 32>` layout to id ranges while the service runs,
 * in three steps that a re-run after an interruption simply repeats (each skips what is done):
 * 1. every older book not yet copied is copied by one transaction (OlderLayout.copy: the new item
 *    only if absent, the old one only at the version read, its index keys removed); the old item
 *    stays, so a list that read the new layout before the copy still finds the book in the old;
 * 2. the counter item is marked: from then on the service reads the range layout only;
 * 3. after `graceMs`, the older items are deleted;
 * 4. every id range below the high mark's gets its end mark, and the counter says so (range-marks.ts):
 *    from then on a list ends where a range has no mark, without reading the counter;
 * 5. every book gets its two-shard author key and its author-and-year key, and the counter says so
 *    (author-keys.ts): from then on a page filtered by author, or by author and year, is two Queries.
 * No book is lost (each exists in one layout or both at every moment) or duplicated (a list merging
 * both layouts keeps one of each id; the indexes hold only the copy).
 */
export const migrateBooksTable = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  { graceMs, log = () => undefined }: MigrationOptions,
): Promise<MigrationReport> => {
  const layout = new LayoutState();
  // The older layout's keys, whatever the mark says; none once this version knows no older layout.
  const older = openOlderLayout({ client, tableName, layout });
  const keys = older.keyQueries().map(({ query }) => query);
  const report: MigrationReport = { copied: 0, alreadyCopied: 0, removed: 0, rangeMarks: 0, authorKeys: 0 };
  if (!(await layout.refresh({ client, tableName })).migrated) {
    for (const [shard, key] of keys.entries()) {
      for await (const item of olderItems(client, key)) {
        if (item.authorShard === undefined) report.alreadyCopied++;
        else if (await copyUntilDone(older, item)) report.copied++;
      }
      log(
        `copy: shard ${shard + 1} of ${keys.length} done (${report.copied} copied, ${report.alreadyCopied} found copied)`,
      );
    }
    await client.send(markRangesLayout(tableName));
    log(`marked: the service now reads the range layout only; deleting the older items in ${graceMs} ms`);
    await sleep(graceMs);
  }
  for (const key of keys) {
    let doomed: { pk: string; sk: number }[] = [];
    const flush = async () => {
      let requests = doomed.map((Key) => ({ DeleteRequest: { Key } }));
      while (requests.length > 0) {
        const { UnprocessedItems } = await client.send(
          new BatchWriteCommand({ RequestItems: { [tableName]: requests } }),
        );
        requests = (UnprocessedItems?.[tableName] ?? []) as typeof requests;
      }
      report.removed += doomed.length;
      doomed = [];
    };
    for await (const item of olderItems(client, key)) {
      doomed.push({ pk: item.pk, sk: item.sk });
      if (doomed.length === BATCH) await flush();
    }
    await flush();
  }
  log(`removed: ${report.removed} older items`);
  const marks = await completeRangeMarks(client, tableName);
  report.rangeMarks = marks.marked;
  log(
    marks.alreadyComplete
      ? `end marks: ${marks.marked} ranges' marks written again (the table had them all)`
      : `end marks: ${marks.marked} ranges marked; lists now end without reading the id blocks`,
  );
  const authorKeys = await completeAuthorKeys(client, tableName, { log });
  report.authorKeys = authorKeys.rewritten;
  log(
    `author keys: ${authorKeys.rewritten} of ${authorKeys.read} books rewritten` +
      (authorKeys.alreadyComplete
        ? ' (the table had them all; every book checked again)'
        : '; pages filtered by author now read two keys'),
  );
  return report;
};

/** One older key's items, whole (the seam's query, strongly consistent). */
async function* olderItems(client: DynamoDBDocumentClient, key: QueryCommandInput) {
  const pages = paginateQuery({ client }, key);
  for await (const page of pages) yield* (page.Items ?? []) as BookItem[];
}

/** Copies one book, reading it again when the service changed or deleted it meanwhile; false when it is gone or was copied by the service. */
const copyUntilDone = async (older: OlderLayout, read: BookItem): Promise<boolean> => {
  let item: BookItem | undefined = read;
  while (item?.authorShard !== undefined) {
    const outcome = await older.copy(item);
    if (outcome === 'copied') return true;
    if (outcome === 'already-copied') return false;
    item = await older.read(read.id);
  }
  return false;
};
