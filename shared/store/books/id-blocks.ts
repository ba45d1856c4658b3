import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ConcurrentUpdateError, IdSpaceExhaustedError, isConditionalCheckFailure } from '../errors';
import { cancellationOf, type NamedWrite, transactWrite } from '../named-transactions';
import { BOOK_RANGE_SIZE, bookRangeOf, ID_BLOCKS_KEY, rangeMarkItem } from './book-items';
import { AUTHOR_INDEX_TWO_SHARDS, LayoutState, RANGE_MARKS_COMPLETE, RANGES_LAYOUT } from './layout-state';
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
 * reused across books: an id whose create stored nothing comes back (release) for this container's
 * next create, so failed creates burn no ids; ids from different containers interleave, so
 * ascending id order is creation order only within one container.
 */
export class IdBlockAllocator {
  private nextId = 1;
  private lastId = 0;
  private size = MIN_ID_BLOCK;
  private reservedAt = 0;
  private reserving: Promise<void> | undefined;
  /** Ids of this container's blocks given back by creates that stored nothing, lowest first. */
  private readonly returned: number[] = [];

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly layout = new LayoutState(),
    private readonly clock: () => number = Date.now,
  ) {}

  async allocate(): Promise<number> {
    const returned = this.returned.shift();
    if (returned !== undefined) return returned;
    // Concurrent callers in one process (the local server) share one reservation.
    while (this.nextId > this.lastId) {
      this.reserving ??= this.reserve().finally(() => {
        this.reserving = undefined;
      });
      await this.reserving;
    }
    return this.nextId++;
  }

  /**
   * Gives back an id this allocator handed out, for a create that is known to have stored nothing
   * (its transaction was cancelled: a duplicate ISBN, an Idempotency-Key already held, a race lost
   * to the end). The next create of this container takes it, so failed creates leave no gap in the
   * ids. Never for a create whose outcome is unknown (a timeout): that id may hold a book.
   */
  release(id: number): void {
    const at = this.returned.findIndex((held) => held > id);
    this.returned.splice(at === -1 ? this.returned.length : at, 0, id);
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

  /**
   * `size` ids after the high mark, with one `ADD` when the block stays within the high mark's id
   * range: the counter item keeps, for each block size, the highest mark from which such a block
   * still fits (`fit<size>`), so the condition needs no arithmetic and no exact knowledge of the
   * mark. A block that would open the next range (or a counter without those attributes: a new
   * table, or one from before them) comes back with the counter as it was and is placed exactly.
   */
  private async reserveBlock(size: number): Promise<[number, number]> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.addBlock(size);
      if (Array.isArray(current)) return current;
      // It does not fit (or the counter has no fits yet): place it exactly, then, should another
      // container have moved the mark meanwhile, try the plain ADD again (it may fit now).
      const outcome = await this.placeExactly(current.asItWas, (highMark) => [highMark + 1, highMark + size]);
      if (Array.isArray(outcome)) return outcome;
      if (attempt >= MAX_OPEN_ATTEMPTS) throw kept();
      await backoff(attempt);
    }
  }

  /** The block by one `ADD` when it stays within the high mark's range; else the counter as it was. */
  private async addBlock(size: number): Promise<[number, number] | { asItWas: Record<string, unknown> | undefined }> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: ID_BLOCKS_KEY,
          UpdateExpression: 'ADD highMark :block',
          ConditionExpression: 'highMark <= #fit',
          ExpressionAttributeNames: { '#fit': fitAttribute(size) },
          ExpressionAttributeValues: { ':block': size },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const highMark = checked(Attributes?.highMark);
      this.layout.learn(Attributes);
      return [highMark - size + 1, highMark];
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      return { asItWas: itemAsItWas<Record<string, unknown>>(error) };
    }
  }

  /**
   * The next whole range above the high mark this container last saw, if nobody reserved past its
   * start meanwhile (else the counter's value comes back with the cancellation and the next range is
   * tried). The ids skipped below the range's start stay unused: the tail of the range before. The
   * mark can only be in the range just below the new one, so that range's end mark goes with it.
   */
  private async reserveRange(): Promise<[number, number]> {
    let current: Record<string, unknown> | undefined = { highMark: this.layout.knownHighMark };
    for (let attempt = 0; attempt < ALIGNED_ATTEMPTS; attempt++) {
      const seen = Number(current?.highMark ?? 0);
      const start = (bookRangeOf(seen) + 1) * BOOK_RANGE_SIZE;
      const outcome = await this.advance(start, checked(start + BOOK_RANGE_SIZE - 1), {
        condition: 'attribute_not_exists(highMark) OR highMark < :start',
        values: { ':start': start },
        belowRange: bookRangeOf(seen),
        newTable: false,
      });
      if (outcome === 'conflict') continue;
      if (Array.isArray(outcome)) return outcome;
      current = outcome.current;
    }
    return this.openRange(current, (highMark) => [highMark + 1, highMark + BOOK_RANGE_SIZE]);
  }

  /** The range-sized block after the exact high mark, for a container that could not get an aligned range. */
  private async openRange(
    asItWas: Record<string, unknown> | undefined,
    plan: (highMark: number) => [number, number],
  ): Promise<[number, number]> {
    let current = asItWas;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.placeExactly(current, plan);
      if (Array.isArray(outcome)) return outcome;
      if (attempt >= MAX_OPEN_ATTEMPTS) throw kept();
      if (outcome !== 'conflict') current = outcome.current;
      await backoff(attempt);
    }
  }

  /**
   * The block `plan` gives from the exact high mark, written on the condition that the mark is still
   * that one, with the end mark of every range the block moves the mark past, in one transaction:
   * so the end marks are exactly the ranges below the high mark's, which is what lets a list end
   * without reading the counter. On a counter with no high mark (a new table) it also marks the
   * table as laid out in ranges with every end mark present and every book's author keys in two shards.
   */
  private placeExactly(current: Record<string, unknown> | undefined, plan: (highMark: number) => [number, number]) {
    this.layout.learn(current);
    const newTable = current?.highMark === undefined;
    const highMark = newTable ? 0 : checked(current?.highMark);
    const [first, last] = plan(highMark);
    return this.advance(first, checked(last), {
      condition: newTable ? 'attribute_not_exists(highMark)' : 'highMark = :seen',
      values: newTable ? {} : { ':seen': highMark },
      belowRange: newTable ? -1 : bookRangeOf(highMark),
      newTable,
    });
  }

  /** One transaction: the counter to `last` (and its fits), and the end marks of the ranges from `belowRange` up to last's. */
  private async advance(
    first: number,
    last: number,
    move: { condition: string; values: Record<string, unknown>; belowRange: number; newTable: boolean },
  ): Promise<[number, number] | 'conflict' | { current: Record<string, unknown> | undefined }> {
    const fits = fitsAbove(last);
    const names: Record<string, string> = move.newTable ? { '#layout': 'layout' } : {};
    const values: Record<string, unknown> = {
      ':last': last,
      ...Object.fromEntries(Object.entries(fits).map(([name, value]) => [`:${name}`, value])),
      ...move.values,
      ...(move.newTable && {
        ':ranges': RANGES_LAYOUT,
        ':complete': RANGE_MARKS_COMPLETE,
        ':twoShards': AUTHOR_INDEX_TWO_SHARDS,
      }),
    };
    const sets = [
      'highMark = :last',
      ...Object.keys(fits).map((name) => `${name} = :${name}`),
      ...(move.newTable ? ['#layout = :ranges', 'rangeMarks = :complete', 'authorIndex = :twoShards'] : []),
    ];
    const writes: NamedWrite<'counter' | 'mark'>[] = [
      {
        name: 'counter',
        write: {
          Update: {
            TableName: this.tableName,
            Key: ID_BLOCKS_KEY,
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: move.condition,
            ...(move.newTable && { ExpressionAttributeNames: names }),
            ExpressionAttributeValues: values,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      },
    ];
    for (let range = move.belowRange; range >= 0 && range < bookRangeOf(last); range++) {
      writes.push({ name: 'mark', write: { Put: { TableName: this.tableName, Item: rangeMarkItem(range) } } });
    }
    try {
      await transactWrite(this.client, writes);
    } catch (error) {
      const outcome = cancellationOf(error, writes);
      if (outcome === 'conflict') return 'conflict';
      const returned = outcome.returned('counter');
      return { current: returned && unmarshall(returned) };
    }
    this.layout.learn({
      highMark: last,
      ...(move.newTable && {
        layout: RANGES_LAYOUT,
        rangeMarks: RANGE_MARKS_COMPLETE,
        authorIndex: AUTHOR_INDEX_TWO_SHARDS,
      }),
    });
    return [first, last];
  }
}

/** The counter attribute that says up to which high mark a block of `size` stays within the mark's range. */
const fitAttribute = (size: number) => `fit${size}`;

/** Every block size below a whole range: MIN_ID_BLOCK, then ID_BLOCK_GROWTH times more each. */
const SMALL_BLOCKS = ((): number[] => {
  const sizes: number[] = [];
  for (let size = MIN_ID_BLOCK; size < BOOK_RANGE_SIZE; size *= ID_BLOCK_GROWTH) sizes.push(size);
  return sizes;
})();

/** For a high mark `last`, the fit of each block size: the last id of its range, less the block. */
const fitsAbove = (last: number): Record<string, number> => {
  const rangeEnd = (bookRangeOf(last) + 1) * BOOK_RANGE_SIZE - 1;
  return Object.fromEntries(SMALL_BLOCKS.map((size) => [fitAttribute(size), rangeEnd - size]));
};

/** Attempts at moving the counter by one exact transaction before the create gives up (503). */
const MAX_OPEN_ATTEMPTS = 10;

const kept = () =>
  new ConcurrentUpdateError(`Reserving book ids kept conflicting during ${MAX_OPEN_ATTEMPTS} attempts`);

/** Full jitter: containers that placed a block at the same mark spread out instead of colliding again. */
const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** Math.min(attempt, 6)));

/** Ids end at MAX_BOOK_ID, which is 2^53−1: a block whose end passes it is given up whole. */
const checked = (value: unknown): number => {
  const highMark = Number(value);
  if (!Number.isSafeInteger(highMark)) throw new IdSpaceExhaustedError('No book ids left');
  return highMark;
};
