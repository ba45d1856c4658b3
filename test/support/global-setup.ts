import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/** One in-memory DynamoDB Local for the whole run; each test file makes its own tables in it. */
export default async function setup(project: TestProject) {
  const database = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', database.endpoint);
  return () => database.stop();
}
