import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { IdSpaceExhaustedError, isConditionalCheckFailure } from '../errors';
import { BOOK_RANGE_SIZE, ID_BLOCKS_KEY } from './book-items';
import { LayoutState, markRangesLayout } from './layout-state';
import { itemAsItWas } from './update-expressions';

/** A quiet container's reservation: a container that creates two books and ends leaves no gap. */
export const MIN_ID_BLOCK = 2;
/** How much larger the next block is when a container used its block up within ID_BLOCK_GROW_WINDOW_MS. */
export const ID_BLOCK_GROWTH = 4;
export const ID_BLOCK_GROW_WINDOW_MS = 20_000;
/** Attempts at reserving a whole aligned range before taking an unaligned block of the same size. */
const ALIGNED_ATTEMPTS = 4;

/**
 * Hands out book ids from blocks reserved with one atomic update of the id-blocks item each, sized to
 * this container's own create rate: a quiet container reserves MIN_ID_BLOCK ids (so a container that
 * ends leaves at most one unused, and ids stay dense), and a container that used its block up within
 * ID_BLOCK_GROW_WINDOW_MS reserves ID_BLOCK_GROWTH times more next time, up to a whole id range
 * (BOOK_RANGE_SIZE), which it then reserves aligned, so each busy container writes to a partition key
 * of its own. A block used up slowly starts again at MIN_ID_BLOCK. Ids stay unique and are never
 * reused, even across containers and failed creates; ids from different containers interleave, so
 * ascending id order is creation order only within one container.
 */
export class IdBlockAllocator {
  private nextId = 1;
  private lastId = 0;
  private size = MIN_ID_BLOCK;
  private reservedAt = 0;
  private reserving: Promise<void> | undefined;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly layout = new LayoutState(),
    private readonly clock: () => number = Date.now,
  ) {}

  async allocate(): Promise<number> {
    // Concurrent callers in one process (the local server) share one reservation.
    while (this.nextId > this.lastId) {
      this.reserving ??= this.reserve().finally(() => {
        this.reserving = undefined;
      });
      await this.reserving;
    }
    return this.nextId++;
  }

  private async reserve(): Promise<void> {
    if (this.lastId > 0) {
      const quick = this.clock() - this.reservedAt <= ID_BLOCK_GROW_WINDOW_MS;
      this.size = quick ? Math.min(this.size * ID_BLOCK_GROWTH, BOOK_RANGE_SIZE) : MIN_ID_BLOCK;
    }
    const [first, last] = this.size >= BOOK_RANGE_SIZE ? await this.reserveRange() : await this.reserveBlock(this.size);
    this.nextId = first;
    this.lastId = last;
    this.reservedAt = this.clock();
  }

  /** `size` ids after the high mark; the id-blocks item's first write on a new table also marks it as having only this layout. */
  private async reserveBlock(size: number): Promise<[number, number]> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: ID_BLOCKS_KEY,
        UpdateExpression: 'ADD highMark :block',
        ExpressionAttributeValues: { ':block': size },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const highMark = checked(Attributes?.highMark);
    this.layout.learn(Attributes);
    if (highMark === size && Attributes?.layout === undefined) await this.markNewTable();
    return [highMark - size + 1, highMark];
  }

  /**
   * The next whole range above the high mark this container last saw, if nobody reserved past its
   * start meanwhile (else the id-blocks item's value comes back with the failure and the next range is
   * tried). The ids skipped below the range's start stay unused: the tail of the range before.
   */
  private async reserveRange(): Promise<[number, number]> {
    let seen = this.layout.knownHighMark;
    for (let attempt = 0; attempt < ALIGNED_ATTEMPTS; attempt++) {
      const start = (Math.floor(seen / BOOK_RANGE_SIZE) + 1) * BOOK_RANGE_SIZE;
      const end = start + BOOK_RANGE_SIZE - 1;
      try {
        const { Attributes } = await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: ID_BLOCKS_KEY,
            UpdateExpression: 'SET highMark = :end',
            ConditionExpression: 'attribute_not_exists(highMark) OR highMark < :start',
            ExpressionAttributeValues: { ':start': start, ':end': checked(end) },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        this.layout.learn(Attributes);
        return [start, end];
      } catch (error) {
        if (!isConditionalCheckFailure(error)) throw error;
        const current = itemAsItWas<Record<string, unknown>>(error);
        this.layout.learn(current);
        seen = Number(current?.highMark ?? seen);
      }
    }
    return this.reserveBlock(BOOK_RANGE_SIZE);
  }

  /** Books on a table whose id-blocks item this very reservation created can only be in this layout. */
  private async markNewTable(): Promise<void> {
    const { Attributes } = await this.client.send(markRangesLayout(this.tableName));
    this.layout.learn(Attributes);
  }
}

/** Ids end at MAX_BOOK_ID, which is 2^53−1: a block whose end passes it is given up whole. */
const checked = (value: unknown): number => {
  const highMark = Number(value);
  if (!Number.isSafeInteger(highMark)) throw new IdSpaceExhaustedError('No book ids left');
  return highMark;
};
