import type { AddressInfo } from 'node:net';
import { createLocalServer, type LocalServerLimits } from '../../local/server';
import { userRecord } from '../../ops/user-records';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { createTestTables } from './dynamodb';

/**
 * The local server in this test process, on its own tables and a free port. The handlers read
 * their configuration from the environment, as on Lambda; each test file runs in its own process.
 */
export const DEMO = { username: 'demo', password: 'demo' };
export const BASIC_DEMO = `Basic ${Buffer.from('demo:demo').toString('base64')}`;

/**
 * What a function container sees, as on Lambda: fresh tables named in the environment, quiet logs
 * and metrics, realm and nonce secret, and the demo user in the auth table.
 */
export const prepareFunctionEnvironment = async (env: Record<string, string> = {}) => {
  const tables = await createTestTables();
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: tables.endpoint,
    BOOKS_TABLE_NAME: tables.names.books,
    AUTH_TABLE_NAME: tables.names.auth,
    POWERTOOLS_LOG_LEVEL: 'CRITICAL',
    POWERTOOLS_METRICS_DISABLED: 'true', // EMF lines are not governed by the log level
    AUTH_REALM: 'books',
    NONCE_SECRET: 'test-secret',
    ...env,
  });
  await new DynamoUserStore(tables.documentClient, tables.names.auth).put({
    ...userRecord(DEMO.username, DEMO.password, process.env.AUTH_REALM as string),
    role: 'admin',
  });
  return tables;
};

export const startLocalApi = async (
  options: {
    publicReads?: boolean;
    env?: Record<string, string>;
    limits?: Partial<LocalServerLimits>;
    /** Project root the handler paths are read from (a test's stand-in handlers). */
    root?: string;
    /** The stage every path starts with (LOCAL_STAGE). */
    stage?: string;
  } = {},
) => {
  // The functions read PUBLIC_READS themselves (a request without a user is refused on a route that is not public).
  const publicReads = { PUBLIC_READS: String(options.publicReads ?? false) };
  const tables = await prepareFunctionEnvironment({ ...publicReads, ...options.env });
  const server = createLocalServer({
    publicReads: options.publicReads ?? false,
    ...(options.limits && { limits: options.limits }),
    ...(options.root && { root: options.root }),
    ...(options.stage && { stage: options.stage }),
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    tables,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};
