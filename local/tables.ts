import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { AUTH_TABLE, BOOKS_TABLE, type KeyAttribute, type TableDefinition } from '../shared/store/tables';

export interface TableNames {
  books: string;
  auth: string;
}

export const DEFAULT_TABLE_NAMES: TableNames = { books: 'books', auth: 'auth' };

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
  };
};

const ensureTable = async (client: DynamoDBClient, tableName: string, table: TableDefinition) => {
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName, table)));
  } catch (error) {
    if (error instanceof ResourceInUseException) return; // already there: data kept across restarts
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

/** Creates the service's tables when they are missing. */
export const ensureTables = async (client: DynamoDBClient, names: TableNames = DEFAULT_TABLE_NAMES) => {
  await ensureTable(client, names.books, BOOKS_TABLE);
  await ensureTable(client, names.auth, AUTH_TABLE);
};
