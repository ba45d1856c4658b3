import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type GetShardIteratorCommandInput,
} from '@aws-sdk/client-dynamodb-streams';
import type { StreamPosition } from './position';

/** DynamoDB's largest GetRecords page. */
const RECORDS_PER_READ = 1000;

type Start = Pick<GetShardIteratorCommandInput, 'ShardIteratorType' | 'SequenceNumber'>;

/** The books table has no stream to read (a DynamoDB given by DYNAMODB_ENDPOINT without one). */
class NoChangeStreamError extends Error {
  override readonly name = 'NoChangeStreamError';
}

const localConfig = (endpoint: string) => ({
  endpoint,
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

/**
 * The books table's change stream, read in order from one shard (Dynoxide serves exactly one): from
 * just after a saved position, or from the stream's end on a first start. `where` says which, for the log.
 */
export class ChangeStream {
  private constructor(
    private readonly client: DynamoDBStreamsClient,
    readonly streamArn: string,
    private readonly shardId: string,
    private readonly start: Start,
    private iterator: string | undefined,
    readonly where: string,
  ) {}

  static async open(endpoint: string, tableName: string, saved: StreamPosition | undefined): Promise<ChangeStream> {
    const tables = new DynamoDBClient(localConfig(endpoint));
    const { Table } = await tables
      .send(new DescribeTableCommand({ TableName: tableName }))
      .finally(() => tables.destroy());
    const streamArn = Table?.LatestStreamArn;
    if (!Table?.StreamSpecification?.StreamEnabled || !streamArn) {
      throw new NoChangeStreamError(`the table ${tableName} has no stream (StreamViewType NEW_AND_OLD_IMAGES)`);
    }
    const client = new DynamoDBStreamsClient(localConfig(endpoint));
    const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    const shardId = StreamDescription?.Shards?.at(-1)?.ShardId;
    if (!shardId) throw new NoChangeStreamError(`the stream of ${tableName} has no shard`);
    // A position in another stream belongs to a table since deleted: every record of this one is new.
    const start: Start =
      saved?.streamArn !== streamArn
        ? { ShardIteratorType: saved ? 'TRIM_HORIZON' : 'LATEST' }
        : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: saved.sequenceNumber };
    const { ShardIterator } = await client.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ...start }),
    );
    const where =
      start.ShardIteratorType === 'AFTER_SEQUENCE_NUMBER'
        ? `after record ${start.SequenceNumber}, where the last run stopped`
        : start.ShardIteratorType === 'LATEST'
          ? 'from now on (first start: no position saved yet)'
          : 'from its first record (the table is new since the saved position)';
    return new ChangeStream(client, streamArn, shardId, start, ShardIterator, where);
  }

  /** The next records in order; none when nothing new was written (or the shard has ended). */
  async read(): Promise<_Record[]> {
    if (!this.iterator) return [];
    const { Records, NextShardIterator } = await this.client.send(
      new GetRecordsCommand({ ShardIterator: this.iterator, Limit: RECORDS_PER_READ }),
    );
    this.iterator = NextShardIterator;
    return Records ?? [];
  }

  /** Positions the reader again after the last record finished with, or where it started (after a failed read). */
  async resumeAfter(sequenceNumber: string | undefined): Promise<void> {
    const start: Start = sequenceNumber
      ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: sequenceNumber }
      : this.start;
    const { ShardIterator } = await this.client.send(
      new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: this.shardId, ...start }),
    );
    this.iterator = ShardIterator;
  }

  close(): void {
    this.client.destroy();
  }
}
