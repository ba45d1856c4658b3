import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { moveOlderBooks } from '../shared/store/books/dynamodb-book-store';
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
}

export interface MigrationOptions {
  /** How long to wait between marking the table and deleting the older items: lists begun before the mark end first. */
  graceMs: number;
  log?: (line: string) => void;
}

/**
 * Moves a books table from the older `BOOK#<id mod 32>` layout to id ranges while the service runs,
 * in steps that a re-run after an interruption simply repeats (each skips what is done):
 * 1.-3. the older layout's books copied, the table marked migrated, the older items deleted
 *    (moveOlderBooks, shared/store/books/legacy/move-books.ts; nothing once that layout is gone);
 * 4. every id range below the high mark's gets its end mark, and the counter says so (range-marks.ts):
 *    from then on a list ends where a range has no mark, without reading the counter.
 */
export const migrateBooksTable = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  { graceMs, log = () => undefined }: MigrationOptions,
): Promise<MigrationReport> => {
  const report: MigrationReport = { ...(await moveOlderBooks(client, tableName, { graceMs, log })), rangeMarks: 0 };
  const marks = await completeRangeMarks(client, tableName);
  report.rangeMarks = marks.marked;
  log(
    marks.alreadyComplete
      ? `end marks: ${marks.marked} ranges' marks written again (the table had them all)`
      : `end marks: ${marks.marked} ranges marked; lists now end without reading the id blocks`,
  );
  return report;
};
