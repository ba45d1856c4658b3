import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDatabase, startLocalDatabase } from '../../local/dynoxide';
import { freePort } from '../../local/ports';
import { createLocalServer } from '../../local/server';
import { ensureTables } from '../../local/tables';
import { checkBooksTable } from '../../ops/invariants';
import { userRecord } from '../../ops/user-records';
import { AUTHENTICATION_UNAVAILABLE_MESSAGE } from '../../shared/http/responses';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import {
  createDocumentClient,
  createDynamoClient,
  DYNAMODB_CALL_WORST_CASE_MS,
} from '../../shared/store/dynamodb-client';
import { apiClient } from '../support/api-client';
import { DEMO } from '../support/local-api';
import { captureLogs } from '../support/log-capture';

/**
 * DynamoDB going away under a running server: this file starts its own Dynoxide (on disk, on a
 * fixed port) so it can stop and restart it without touching the run's shared one.
 */
const GENERIC_500 = { timestamp: expect.any(String), status: 500, message: 'An unexpected error occurred' };
const AUTHENTICATION_UNAVAILABLE = { status: 503, message: AUTHENTICATION_UNAVAILABLE_MESSAGE };
const names = { books: 'books', auth: 'auth' };
const dataDir = mkdtempSync(join(tmpdir(), 'books-outage-'));
let port: number;
let database: LocalDatabase | undefined;
const servers: Server[] = [];
const logs = captureLogs();

const listen = async (publicReads: boolean) => {
  const server = createLocalServer({ publicReads });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return apiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
};

beforeAll(async () => {
  port = await freePort();
  database = await startLocalDatabase({ dataDir, port });
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: database.endpoint,
    BOOKS_TABLE_NAME: names.books,
    AUTH_TABLE_NAME: names.auth,
    AUTH_REALM: 'books',
    NONCE_SECRET: 'outage-secret',
    // For publicApi's functions (they refuse a read without a user unless reads are public); api's
    // gateway still runs the authorizer on every route, so its functions always get a user.
    PUBLIC_READS: 'true',
    POWERTOOLS_LOG_LEVEL: 'WARN',
    POWERTOOLS_METRICS_DISABLED: 'true', // EMF lines are not governed by the log level
  });
  await ensureTables(createDynamoClient(database.endpoint), names);
  await new DynamoUserStore(createDocumentClient(database.endpoint), names.auth).put({
    ...userRecord(DEMO.username, DEMO.password, 'books'),
    role: 'admin',
  });
});
afterAll(async () => {
  logs.restore();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await database?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Dynoxide stopped while the server runs', () => {
  it('answers in bounded time while it is down (a handler: the generic 500; the authorizer: 503 with Retry-After), and serves the data again once it is back', async () => {
    const api = await listen(false);
    const publicApi = await listen(true); // GETs skip the authorizer, so the handler meets the outage itself
    const book = { title: 'Outage', author: 'Ops', isbn: 'outage-1', publicationYear: 2020 };
    const created = await api.call('POST', '/api/books', book);
    expect(created.status).toBe(201);

    await database?.stop();
    logs.clear();
    const bound = DYNAMODB_CALL_WORST_CASE_MS.unreachableHost + 2_000;
    for (const [client, method, path, body] of [
      [publicApi, 'GET', `/api/books/${created.json.id}`, undefined],
      [publicApi, 'GET', '/api/books', undefined],
      [api, 'POST', '/api/books', { ...book, isbn: 'outage-2' }], // the authorizer meets it first
      [api, 'DELETE', `/api/books/${created.json.id}`, undefined],
    ] as const) {
      const started = performance.now();
      const response = await client.call(method, path, body);
      if (client === publicApi) {
        expect(response.status, `${method} ${path}`).toBe(500);
        expect(response.json).toEqual(GENERIC_500);
      } else {
        expect(response.status, `${method} ${path}`).toBe(503);
        expect(response.headers.get('retry-after')).toBe('1');
        expect(response.json).toMatchObject(AUTHENTICATION_UNAVAILABLE);
      }
      expect(performance.now() - started).toBeLessThan(bound);
    }
    // Each handler failure is logged once, with its request id (the authorizer's failures are the
    // gateway's: on AWS, Lambda logs a function that throws).
    const errors = logs.errors();
    expect(errors).toHaveLength(2);
    for (const line of errors) expect(JSON.stringify(line)).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/);

    database = await startLocalDatabase({ dataDir, port });
    const read = await api.call('GET', `/api/books/${created.json.id}`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(created.json);
    expect((await api.call('POST', '/api/books', { ...book, isbn: 'outage-2' })).status).toBe(201);
    const report = await checkBooksTable(createDocumentClient(database.endpoint), names.books);
    expect(report).toMatchObject({ books: 2, violations: [] });
  }, 90_000);
});
