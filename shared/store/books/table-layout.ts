import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TableLayoutError } from '../errors';
import { BOOKS_TABLE } from '../tables';

/** The key attributes and indexes a table is declared with, in a comparable form. */
const shapeOf = (keys: string[], indexes: string[]) => JSON.stringify({ keys, indexes: [...indexes].sort() });

const EXPECTED = shapeOf(
  [BOOKS_TABLE.partitionKey.name, BOOKS_TABLE.sortKey?.name ?? ''],
  BOOKS_TABLE.indexes.map((index) => `${index.indexName}(${index.partitionKey.name},${index.sortKey?.name ?? ''})`),
);

/**
 * Refuses a books table this version cannot read, rather than misreading it: the single-partition layout (all
 * books under one key, indexes byAuthor and byYear) or some other table. Tools call it before they
 * touch the data; the table's declaration is enough, no item is read.
 */
export const assertBooksTableLayout = async (client: DynamoDBDocumentClient, tableName: string): Promise<void> => {
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
  if (shapeOf(keyNames(Table?.KeySchema), indexes) === EXPECTED) return;
  const found = indexes.length > 0 ? indexes.join(', ') : 'no indexes';
  throw new TableLayoutError(
    `Table ${tableName} is not laid out as this version of the service reads it (it has ${found}; ` +
      `expected ${BOOKS_TABLE.indexes.map((index) => index.indexName).join(' and ')}). ` +
      'It may hold books in the older single-partition layout: use a new table (locally, stop npm start and ' +
      'remove the data folder, .data by default) and load the books again.',
  );
};
