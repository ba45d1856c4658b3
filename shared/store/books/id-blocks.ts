import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ConcurrentUpdateError, IdSpaceExhaustedError, isConditionalCheckFailure } from '../errors';
import { cancellationOf, type NamedWrite, transactWrite } from '../named-transactions';
import { BOOK_RANGE_SIZE, bookRangeOf, ID_BLOCKS_KEY, rangeMarkItem } from './book-items';
import { IdBlocksView } from './id-blocks-view';
import { itemAsItWas } from './update-expressions';

/** A quiet container's reservation: a container that creates two books and ends leaves no gap. */
export const MIN_ID_BLOCK = 2;
/** How much larger the next block is when a container used its block up within ID_BLOCK_GROW_WINDOW_MS. */
const ID_BLOCK_GROWTH = 4;
export const ID_BLOCK_GROW_WINDOW_MS = 20_000;
/** Attempts at reserving a whole aligned range before taking an unaligned block of the same size. */
const ALIGNED_ATTEMPTS = 4;

/**
 * Hands out book ids from blocks reserved on the id-blocks item, sized to this container's create
 * rate so ids stay dense and a busy container writes to an id range of its own (docs/data-model.md).
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
    private readonly view = new IdBlocksView(),
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
   * Gives back an id for a create known to have stored nothing, so failed creates leave no gap.
   * Never for a create whose outcome is unknown (a timeout): that id may hold a book.
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
   * `size` ids after the high mark, by one `ADD` while the block stays within the mark's id range:
   * the id-blocks item keeps, per block size, the highest mark from which it still fits (`fit<size>`).
   * A block that would open the next range is placed exactly.
   */
  private async reserveBlock(size: number): Promise<[number, number]> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.addBlock(size);
      if (Array.isArray(current)) return current;
      // Placed exactly; should another container have moved the mark meanwhile, the ADD may fit now.
      const outcome = await this.placeExactly(current.asItWas, (highMark) => [highMark + 1, highMark + size]);
      if (Array.isArray(outcome)) return outcome;
      if (attempt >= MAX_OPEN_ATTEMPTS) throw kept();
      await backoff(attempt);
    }
  }

  /** The block by one `ADD` when it stays within the high mark's range; else the id-blocks item as it was. */
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
      this.view.learn(Attributes);
      return [highMark - size + 1, highMark];
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      return { asItWas: itemAsItWas<Record<string, unknown>>(error) };
    }
  }

  /**
   * The next whole range above the high mark this container last saw, if nobody reserved past its
   * start meanwhile (else the next range is tried). The ids skipped below its start stay unused.
   */
  private async reserveRange(): Promise<[number, number]> {
    let current: Record<string, unknown> | undefined = { highMark: this.view.knownHighMark };
    for (let attempt = 0; attempt < ALIGNED_ATTEMPTS; attempt++) {
      const seen = Number(current?.highMark ?? 0);
      const start = (bookRangeOf(seen) + 1) * BOOK_RANGE_SIZE;
      const outcome = await this.advance(start, checked(start + BOOK_RANGE_SIZE - 1), {
        condition: 'attribute_not_exists(highMark) OR highMark < :start',
        values: { ':start': start },
        belowRange: bookRangeOf(seen),
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
   * The block `plan` gives from the exact high mark, on the condition that the mark is still that
   * one, with the end mark of every range it moves the mark past in the same transaction: so a list
   * ends where a range has no end mark, without reading the id-blocks item.
   */
  private placeExactly(current: Record<string, unknown> | undefined, plan: (highMark: number) => [number, number]) {
    this.view.learn(current);
    const newTable = current?.highMark === undefined;
    const highMark = newTable ? 0 : checked(current?.highMark);
    const [first, last] = plan(highMark);
    return this.advance(first, checked(last), {
      condition: newTable ? 'attribute_not_exists(highMark)' : 'highMark = :seen',
      values: newTable ? {} : { ':seen': highMark },
      belowRange: newTable ? -1 : bookRangeOf(highMark),
    });
  }

  /** One transaction: the high mark to `last` (and its fits), and the end marks of the ranges from `belowRange` up to last's. */
  private async advance(
    first: number,
    last: number,
    move: { condition: string; values: Record<string, unknown>; belowRange: number },
  ): Promise<[number, number] | 'conflict' | { current: Record<string, unknown> | undefined }> {
    const fits = fitsAbove(last);
    const values: Record<string, unknown> = {
      ':last': last,
      ...Object.fromEntries(Object.entries(fits).map(([name, value]) => [`:${name}`, value])),
      ...move.values,
    };
    const sets = ['highMark = :last', ...Object.keys(fits).map((name) => `${name} = :${name}`)];
    const writes: NamedWrite<'idBlocks' | 'mark'>[] = [
      {
        name: 'idBlocks',
        write: {
          Update: {
            TableName: this.tableName,
            Key: ID_BLOCKS_KEY,
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: move.condition,
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
      const returned = outcome.returned('idBlocks');
      return { current: returned && unmarshall(returned) };
    }
    this.view.learn({ highMark: last });
    return [first, last];
  }
}

/** The id-blocks item's attribute that says up to which high mark a block of `size` stays within the mark's range. */
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

/** Attempts at moving the high mark by one exact transaction before the create gives up (503). */
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
