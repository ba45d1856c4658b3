import type { TestProject } from 'vitest/node';
import { type LocalDatabase, startLocalDatabase } from '../../local/dynoxide';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/**
 * One in-memory Dynoxide for the whole run, shared by every project that asks for it (each test
 * file makes its own tables in it), and stopped after the last of them: the projects' setups run in
 * one process, so the instance and its users are counted there. TEST_DYNAMODB_ENDPOINT runs the same
 * tests against any other DynamoDB (docs/testing.md).
 */
const shared = globalThis as typeof globalThis & {
  localDatabase?: { database: Promise<LocalDatabase>; users: number };
};

export default async function setup(project: TestProject) {
  // Not DYNAMODB_ENDPOINT: one set for npm start in the shell must not send test tables there.
  const given = process.env.TEST_DYNAMODB_ENDPOINT;
  if (given) {
    project.provide('dynamoEndpoint', given);
    return;
  }
  shared.localDatabase ??= { database: startLocalDatabase(), users: 0 };
  const state = shared.localDatabase;
  state.users++;
  const database = await state.database;
  project.provide('dynamoEndpoint', database.endpoint);
  return async () => {
    if (--state.users > 0) return;
    shared.localDatabase = undefined;
    await database.stop();
  };
}
