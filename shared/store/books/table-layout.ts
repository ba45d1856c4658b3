import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TableLayoutError } from '../errors';
import { BOOKS_TABLE, type IndexDefinition } from '../tables';

/** The key attributes and indexes a table is declared with, in a comparable form. */
const shapeOf = (keys: string[], indexes: string[]) => JSON.stringify({ keys, indexes: [...indexes].sort() });

const declared = (index: IndexDefinition) =>
  `${index.indexName}(${index.partitionKey.name},${index.sortKey?.name ?? ''})`;
const EXPECTED_KEYS = [BOOKS_TABLE.partitionKey.name, BOOKS_TABLE.sortKey?.name ?? ''];
const EXPECTED = shapeOf(EXPECTED_KEYS, BOOKS_TABLE.indexes.map(declared));

const LIST = new Intl.ListFormat('en', { type: 'conjunction' });

/** The indexes this version added to a table that had the others (tables.ts): each is one deployment. */
const ADDED_LAST = BOOKS_TABLE.indexes.slice(-1);

/**
 * The table's key and index declarations, and the indexes this version reads that it lacks when it
 * is otherwise as this version reads it (a table from the version before): those a deployment adds.
 */
const describeLayout = async (client: DynamoDBDocumentClient, tableName: string) => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const keyNames = (schema: { AttributeName?: string; KeyType?: string }[] | undefined) => {
    const hash = schema?.find((key) => key.KeyType === 'HASH')?.AttributeName ?? '';
    const range = schema?.find((key) => key.KeyType === 'RANGE')?.AttributeName ?? '';
    return [hash, range];
  };
  const indexes = (Table?.GlobalSecondaryIndexes ?? []).map((index) => {
    const [hash, range] = keyNames(index.KeySchema);
    return `${index.IndexName}(${hash},${range})`;
  });
  const keys = keyNames(Table?.KeySchema);
  const missing = ADDED_LAST.filter((index) => !indexes.includes(declared(index)));
  const olderVersion =
    missing.length > 0 && shapeOf(keys, [...indexes, ...missing.map(declared)]) === EXPECTED ? missing : [];
  return { matches: shapeOf(keys, indexes) === EXPECTED, indexes, missing: olderVersion };
};

/** The indexes a table from the previous version lacks (none for a table as this version reads it, or for another table). */
export const indexesToAdd = async (client: DynamoDBDocumentClient, tableName: string): Promise<IndexDefinition[]> =>
  (await describeLayout(client, tableName)).missing;

/**
 * Refuses a books table this version cannot read, rather than misreading it: the single-partition layout (all
 * books under one key, indexes byAuthor and byYear) or some other table. Tools call it before they
 * touch the data; the table's declaration is enough, no item is read.
 */
export const assertBooksTableLayout = async (client: DynamoDBDocumentClient, tableName: string): Promise<void> => {
  const { matches, indexes, missing } = await describeLayout(client, tableName);
  if (matches) return;
  if (missing.length > 0) {
    throw new TableLayoutError(
      `Table ${tableName} lacks the index ${missing.map((index) => index.indexName).join(', ')} that this version ` +
        'reads: deploy this version of the stack first (cdk deploy adds it; locally, npm start does), then run ' +
        'npm run data:migrate-layout to give existing books its keys.',
    );
  }
  const found = indexes.length > 0 ? indexes.join(', ') : 'no indexes';
  throw new TableLayoutError(
    `Table ${tableName} is not laid out as this version of the service reads it (it has ${found}; ` +
      `expected ${LIST.format(BOOKS_TABLE.indexes.map((index) => index.indexName))}). ` +
      'It may hold books in the older single-partition layout: use a new table (locally, stop npm start and ' +
      'remove the data folder, .data by default) and load the books again.',
  );
};

/**
 * Waits until DynamoDB has built every index this version reads: CloudFormation starts an index's
 * creation and goes on without waiting, and a Query of an index still being built fails. A new
 * table's indexes are ready at once; one added to a table with items is built from them first.
 */
export const waitForIndexes = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  { log = () => undefined, pollMs = 20_000 }: { log?: (line: string) => void; pollMs?: number } = {},
): Promise<void> => {
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const building = (Table?.GlobalSecondaryIndexes ?? []).filter(
      (index) => index.IndexStatus !== 'ACTIVE' || index.Backfilling === true,
    );
    if (building.length === 0) return;
    log(
      `waiting for DynamoDB to build ${building
        .map((index) => `${index.IndexName} (${index.IndexStatus}${index.Backfilling ? ', backfilling' : ''})`)
        .join(', ')}; checking again in ${Math.round(pollMs / 1000)} s`,
    );
    await new Promise((done) => setTimeout(done, pollMs));
  }
};
