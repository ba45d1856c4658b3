import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ID_BLOCKS_KEY } from './book-items';

/** One read of the id-blocks item: the highest id this container knows reserved, and the item itself. */
export interface IdBlocksRead {
  highMark: number;
  /** The item as this read or write returned it (undefined on a table that has none yet). */
  item?: Record<string, unknown> | undefined;
}

/**
 * What this container knows of the id-blocks item, learnt whenever it is read or written: the
 * highest id reserved is a lower bound (other containers reserve too), so a list that must know it
 * exactly reads the item again.
 */
export class IdBlocksView {
  private highMark = 0;

  get knownHighMark(): number {
    return this.highMark;
  }

  learn(attributes: Record<string, unknown> | undefined): IdBlocksRead {
    const highMark = Number(attributes?.highMark ?? 0);
    if (Number.isSafeInteger(highMark) && highMark > this.highMark) this.highMark = highMark;
    return { highMark: this.highMark, item: attributes };
  }

  /** One strongly consistent read: books created before it have ids up to its high mark. */
  async refresh({ client, tableName }: { client: DynamoDBDocumentClient; tableName: string }): Promise<IdBlocksRead> {
    const { Item } = await client.send(
      new GetCommand({ TableName: tableName, Key: ID_BLOCKS_KEY, ConsistentRead: true }),
    );
    return this.learn(Item);
  }
}
