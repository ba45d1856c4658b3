import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ID_BLOCKS_KEY } from './book-items';

/** The id-blocks item's mark that no book is left in the older `BOOK#<id mod 32>` layout. */
export const RANGES_LAYOUT = 'ranges';

/**
 * The write that marks a table as holding books in the range layout only: on a new table (no book
 * was ever in the older layout) and at the end of a migration's copy. The mark never reverts.
 * It returns the id-blocks item, for LayoutState.learn.
 */
export const markRangesLayout = (tableName: string) =>
  new UpdateCommand({
    TableName: tableName,
    Key: ID_BLOCKS_KEY,
    UpdateExpression: 'SET #layout = :ranges',
    ExpressionAttributeNames: { '#layout': 'layout' },
    ExpressionAttributeValues: { ':ranges': RANGES_LAYOUT },
    ReturnValues: 'ALL_NEW',
  });

/** The counter item's mark that every range below the high mark's has its end mark (book-items.ts, rangeMarkKey). */
export const RANGE_MARKS_COMPLETE = 'complete';

/**
 * The counter item's mark (attribute `authorIndex`) that every book has its two-shard author key and
 * its author-and-year key (book-items.ts): from then on a filter by author reads two keys, not
 * OLDER_AUTHOR_SHARDS, and a filter by author and year reads the author-and-year index.
 */
export const AUTHOR_INDEX_TWO_SHARDS = 'two-shards';

/**
 * The counter item of a table that has just been created: no book was ever in the older layout, and
 * no range has been opened, so every range that will be opened gets its end mark from the start.
 */
export const markNewBooksTable = (tableName: string) =>
  new UpdateCommand({
    TableName: tableName,
    Key: ID_BLOCKS_KEY,
    UpdateExpression:
      'SET #layout = :ranges, rangeMarks = if_not_exists(rangeMarks, :complete), authorIndex = if_not_exists(authorIndex, :twoShards)',
    ConditionExpression: 'attribute_not_exists(highMark)',
    ExpressionAttributeNames: { '#layout': 'layout' },
    ExpressionAttributeValues: {
      ':ranges': RANGES_LAYOUT,
      ':complete': RANGE_MARKS_COMPLETE,
      ':twoShards': AUTHOR_INDEX_TWO_SHARDS,
    },
    ReturnValues: 'ALL_NEW',
  });

/** What the counter item says: the last id reserved, and whether the older layout is gone. */
export interface IdBlocksState {
  highMark: number;
  migrated: boolean;
  /** Every opened range's end mark exists, so a range read to its end without one is the last. */
  rangeMarks: boolean;
  /** Every book has its two-shard author keys (AUTHOR_INDEX_TWO_SHARDS). */
  authorPairs: boolean;
  /** The counter item as this read or write returned it (its other attributes: the list's verdict). */
  item?: Record<string, unknown> | undefined;
}

/**
 * What this container knows of the table, learnt from the id-blocks item whenever it is read or
 * written: the highest id reserved (a lower bound: other containers reserve too) and whether the
 * older layout is gone. The latter never reverts, so once seen it costs no call again: a migrated
 * table's reads never look at the older layout.
 */
export class LayoutState {
  private highMark = 0;
  private counterSeen = false;
  private migratedSeen = false;
  private rangeMarksSeen = false;
  private authorPairsSeen = false;
  /** When this container last read the id-blocks item (epoch ms), for marks still to come. */
  private readAt = Number.NEGATIVE_INFINITY;

  get knownHighMark(): number {
    return this.highMark;
  }

  /**
   * True once this container has read the id-blocks item, or a write returned it with its marks: what
   * it knows of the high mark and of the end marks is then worth acting on without another read.
   */
  get counterRead(): boolean {
    return this.counterSeen;
  }

  /**
   * True once this container has seen the migration's end (or a table that never had the older
   * layout). Temporary: only the older layout's seam (legacy/) asks, and it goes with that folder.
   */
  get migrated(): boolean {
    return this.migratedSeen;
  }

  /** True once this container has seen that every opened range has its end mark (the mark never reverts). */
  get rangeMarks(): boolean {
    return this.rangeMarksSeen;
  }

  /** True once this container has seen that every book has its two-shard author keys (the mark never reverts). */
  get authorPairs(): boolean {
    return this.authorPairsSeen;
  }

  /**
   * Whether a filtered read should read the id-blocks item first to learn the author keys' mark: when
   * this container has never read it, or has not seen the mark and last read it over `maxAgeMs` ago
   * (a migration may have set it since). Once seen, never again.
   */
  shouldLookForAuthorPairs(now: number, maxAgeMs: number): boolean {
    return !this.authorPairsSeen && (!this.counterSeen || now - this.readAt > maxAgeMs);
  }

  learn(attributes: Record<string, unknown> | undefined): IdBlocksState {
    if (attributes?.layout !== undefined || attributes?.rangeMarks !== undefined) {
      this.counterSeen = true;
      this.readAt = Date.now();
    }
    const highMark = Number(attributes?.highMark ?? 0);
    if (Number.isSafeInteger(highMark) && highMark > this.highMark) this.highMark = highMark;
    if (attributes?.layout === RANGES_LAYOUT) this.migratedSeen = true;
    if (attributes?.rangeMarks === RANGE_MARKS_COMPLETE) this.rangeMarksSeen = true;
    if (attributes?.authorIndex === AUTHOR_INDEX_TWO_SHARDS) this.authorPairsSeen = true;
    return {
      highMark: this.highMark,
      migrated: this.migratedSeen,
      rangeMarks: this.rangeMarksSeen,
      authorPairs: this.authorPairsSeen,
      item: attributes,
    };
  }

  /** One strongly consistent read of the id-blocks item: books created before it have ids up to its high mark. */
  async refresh({ client, tableName }: { client: DynamoDBDocumentClient; tableName: string }): Promise<IdBlocksState> {
    const { Item } = await client.send(
      new GetCommand({ TableName: tableName, Key: ID_BLOCKS_KEY, ConsistentRead: true }),
    );
    this.counterSeen = true;
    this.readAt = Date.now();
    return this.learn(Item);
  }
}
