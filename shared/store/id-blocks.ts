import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ID_BLOCKS_KEY } from './book-items';
import { IdSpaceExhaustedError } from './errors';

/** Ids a container reserves at once: one counter write per this many creates. */
export const ID_BLOCK_SIZE = 100;

/**
 * Hands out book ids from blocks reserved with one atomic counter update each, so a create does not
 * write the counter item (which DynamoDB could not split) every time. Ids stay unique and are never
 * reused, even across containers and failed creates; a container that ends leaves the rest of its
 * block unused (gaps), and ids from different containers interleave, so ascending id order is
 * creation order only within one container.
 */
export class IdBlockAllocator {
  private nextId = 1;
  private lastId = 0;
  private reserving: Promise<void> | undefined;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly blockSize = ID_BLOCK_SIZE,
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
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: ID_BLOCKS_KEY,
        UpdateExpression: 'ADD highMark :block',
        ExpressionAttributeValues: { ':block': this.blockSize },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const highMark = Number(Attributes?.highMark);
    // Ids end at MAX_BOOK_ID, which is 2^53−1: a block whose end passes it is given up whole (its end
    // cannot be read exactly as a JS number; the ids lost at the end of the id space are a gap).
    if (!Number.isSafeInteger(highMark)) throw new IdSpaceExhaustedError('No book ids left');
    this.nextId = highMark - this.blockSize + 1;
    this.lastId = highMark;
  }
}
