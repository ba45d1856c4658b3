import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/**
 * One in-memory DynamoDB Local for the whole run, shared by every project that asks for it (each
 * test file makes its own tables in it), and stopped after the last of them: the projects' setups
 * run in one process, so the instance and its users are counted there.
 */
const shared = globalThis as typeof globalThis & {
  dynamoDbLocal?: { database: Promise<DynamoDbLocal>; users: number };
};

export default async function setup(project: TestProject) {
  shared.dynamoDbLocal ??= { database: startDynamoDbLocal(), users: 0 };
  const state = shared.dynamoDbLocal;
  state.users++;
  const database = await state.database;
  project.provide('dynamoEndpoint', database.endpoint);
  return async () => {
    if (--state.users > 0) return;
    shared.dynamoDbLocal = undefined;
    await database.stop();
  };
}
