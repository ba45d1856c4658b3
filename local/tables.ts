import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DEFAULTS } from '../shared/config';
import { completeAuthorKeys } from '../shared/store/books/author-keys';
import { markNewBooksTable } from '../shared/store/books/layout-state';
import { assertBooksTableLayout, indexesToAdd } from '../shared/store/books/table-layout';
import { isConditionalCheckFailure } from '../shared/store/errors';
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
  };
};

/** Creates a table when it is missing; true when it was already there (its data kept across restarts). */
const ensureTable = async (client: DynamoDBClient, tableName: string, table: TableDefinition) => {
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName, table)));
  } catch (error) {
    if (error instanceof ResourceInUseException) return true;
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
  return false;
};

/**
 * Brings a books table from the version before up to this one, as `cdk deploy` and
 * `npm run data:migrate-layout` do on AWS: adds the index it lacks (one per UpdateTable, as DynamoDB
 * allows) and gives existing books its keys. A local catalogue is small: this takes moments.
 */
const upgradeBooksTable = async (
  client: DynamoDBClient,
  documents: DynamoDBDocumentClient,
  tableName: string,
  log: (line: string) => void,
) => {
  const missing = await indexesToAdd(documents, tableName);
  if (missing.length === 0) return;
  const definitions = createTableInput(tableName, BOOKS_TABLE);
  for (const index of missing) {
    log(`Adding the index ${index.indexName} to ${tableName} (a table from an earlier version)`);
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: definitions.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [
          { Create: definitions.GlobalSecondaryIndexes?.find((each) => each.IndexName === index.indexName) },
        ],
      }),
    );
  }
  // It waits for DynamoDB to build the index before it marks the table (waitForIndexes).
  const { rewritten } = await completeAuthorKeys(documents, tableName);
  log(`Gave ${rewritten} books their keys in the new index`);
};

/** Creates the service's tables when they are missing; refuses a books table in another layout (TableLayoutError). */
export const ensureTables = async (
  client: DynamoDBClient,
  names: TableNames = DEFAULT_TABLE_NAMES,
  log: (line: string) => void = () => undefined,
) => {
  const documents = DynamoDBDocumentClient.from(client);
  if (await ensureTable(client, names.books, BOOKS_TABLE)) {
    await upgradeBooksTable(client, documents, names.books, log);
    await assertBooksTableLayout(documents, names.books);
  } else {
    // A new table never held the older layout and has opened no range: say so, and no read looks
    // for the older layout or reads the counter to find where ids end. (Ids already reserved: the
    // first reservation marked it.)
    await documents.send(markNewBooksTable(names.books)).catch((error: unknown) => {
      if (!isConditionalCheckFailure(error)) throw error;
    });
  }
  await ensureTable(client, names.auth, AUTH_TABLE);
};
