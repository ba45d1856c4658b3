import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { ensureTables, type TableNames } from '../../local/tables';
import { createDocumentClient } from '../../shared/store/dynamodb-client';

/** Fresh, uniquely named tables in the run's DynamoDB Local, so test files never see each other's data. */
export const createTestTables = async () => {
  const endpoint = inject('dynamoEndpoint');
  const suffix = randomUUID().slice(0, 8);
  const names: TableNames = { books: `books-${suffix}`, auth: `auth-${suffix}` };
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTables(client, names);
  return { endpoint, names, client, documentClient: createDocumentClient(endpoint) };
};
