import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { runMigrations } from '../ops/migrations/run';
import { DEFAULTS } from '../shared/config';
import { AUTH_TABLE, BOOKS_TABLE, type KeyAttribute, type TableDefinition } from '../shared/store/tables';

export interface TableNames {
  books: string;
  auth: string;
}

export const DEFAULT_TABLE_NAMES: TableNames = DEFAULTS.tableNames;

const keySchema = (partitionKey: KeyAttribute, sortKey?: KeyAttribute) => [
  { AttributeName: partitionKey.name, KeyType: 'HASH' as const },
  ...(sortKey ? [{ AttributeName: sortKey.name, KeyType: 'RANGE' as const }] : []),
];

/** The CreateTable request for a definition the CDK stack also builds from. */
export const createTableInput = (tableName: string, table: TableDefinition): CreateTableCommandInput => {
  const attributes = new Map<string, KeyAttribute>();
  for (const key of [table.partitionKey, table.sortKey, ...table.indexes.flatMap((i) => [i.partitionKey, i.sortKey])]) {
    if (key) attributes.set(key.name, key);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes.values()].map((a) => ({ AttributeName: a.name, AttributeType: a.type })),
    KeySchema: keySchema(table.partitionKey, table.sortKey),
    ...(table.indexes.length > 0 && {
      GlobalSecondaryIndexes: table.indexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: keySchema(index.partitionKey, index.sortKey),
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
    ...(table.streamView && { StreamSpecification: { StreamEnabled: true, StreamViewType: table.streamView } }),
  };
};

/** A table made before it declared its stream (an older DATA_DIR) gets it now: the change events read it. */
const ensureStream = async (client: DynamoDBClient, tableName: string, table: TableDefinition) => {
  if (!table.streamView) return;
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (Table?.StreamSpecification?.StreamEnabled) return;
  await client.send(
    new UpdateTableCommand({
      TableName: tableName,
      StreamSpecification: { StreamEnabled: true, StreamViewType: table.streamView },
    }),
  );
};

/** Creates a table when it is missing (an existing one keeps its data across restarts). */
const ensureTable = async (client: DynamoDBClient, tableName: string, table: TableDefinition) => {
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName, table)));
  } catch (error) {
    if (error instanceof ResourceInUseException) return ensureStream(client, tableName, table);
    throw error;
  }
  if (table.timeToLiveAttribute) {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: table.timeToLiveAttribute, Enabled: true },
      }),
    );
  }
};

/**
 * Creates the service's tables when they are missing and runs the books table's `before` steps, as
 * `npm run data:migrate -- --phase before` does (a new table gets every step): like a deploy, a start
 * leaves the `after` steps to the operator, since another release may still serve the same table.
 */
export const ensureTables = async (
  client: DynamoDBClient,
  names: TableNames = DEFAULT_TABLE_NAMES,
  log: (line: string) => void = () => undefined,
) => {
  await ensureTable(client, names.books, BOOKS_TABLE);
  await runMigrations(DynamoDBDocumentClient.from(client), names.books, {
    phase: 'before',
    log: (line) => log(`${names.books}: ${line}`),
  });
  await ensureTable(client, names.auth, AUTH_TABLE);
};
