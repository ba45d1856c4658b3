import type { AddressInfo } from 'node:net';
import { createLocalServer } from '../../local/server';
import { createTestTables } from './dynamodb';

/**
 * The local server in this test process, on its own tables and a free port. The handlers read
 * their configuration from the environment, as on Lambda; each test file runs in its own process.
 */
export const startLocalApi = async (env: Record<string, string> = {}) => {
  const tables = await createTestTables();
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: tables.endpoint,
    BOOKS_TABLE_NAME: tables.names.books,
    AUTH_TABLE_NAME: tables.names.auth,
    POWERTOOLS_LOG_LEVEL: 'CRITICAL',
    ...env,
  });
  const server = createLocalServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    tables,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};
