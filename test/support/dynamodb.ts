import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { ensureTables, type TableNames } from '../../local/tables';
import { createDocumentClient, createDynamoClient } from '../../shared/store/dynamodb-client';

/** Fresh, uniquely named tables in the run's DynamoDB Local, so test files never see each other's data. */
export const createTestTables = async () => {
  const endpoint = inject('dynamoEndpoint');
  const suffix = randomUUID().slice(0, 8);
  const names: TableNames = { books: `books-${suffix}`, auth: `auth-${suffix}` };
  const client = createDynamoClient(endpoint);
  await ensureTables(client, names);
  return { endpoint, names, client, documentClient: createDocumentClient(endpoint) };
};
