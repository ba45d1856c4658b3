import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AUTHORIZER_CALL_WORST_CASE_MS, AUTHORIZER_CLIENT_LIMITS } from '../../shared/store/dynamodb-client';
import { createTestTables } from '../support/dynamodb';
import { type ServerProcess, startServerProcess } from '../support/server-process';
import { startThrottlingProxy } from '../support/throttling-proxy';

/**
 * Past the account item's ceiling: `npm start` on a DynamoDB whose auth-table calls are throttled,
 * or not answered at all. The authorizer retries a failed call once at most and throws; the gateway
 * answers 503 with Retry-After and the contract's error body, as the stack's AUTHORIZER_FAILURE
 * response does, within AUTHORIZER_CALL_WORST_CASE_MS (the silent case: and a second's slack).
 */
let server: ServerProcess;
let proxy: Awaited<ReturnType<typeof startThrottlingProxy>>;

beforeAll(async () => {
  const tables = await createTestTables();
  proxy = await startThrottlingProxy(inject('dynamoEndpoint'));
  server = await startServerProcess(proxy.endpoint, tables.names, [], { LOCAL_USERS: 'machine:machine-password' });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await proxy?.close();
});

const basic = (password: string) => `Basic ${Buffer.from(`machine:${password}`, 'utf8').toString('base64')}`;

const timed = async (authorization: string) => {
  const started = performance.now();
  const response = await fetch(`${server.baseUrl}/api/books?limit=1`, { headers: { authorization } });
  return { response, ms: performance.now() - started, body: await response.text() };
};

describe('a throttled auth table', () => {
  it.each([
    ['UpdateItem', 'a right password whose admission is throttled', 'machine-password'],
    ['UpdateItem', 'a wrong password whose failure is throttled', 'wrong-password'],
    ['GetItem', 'any password whose account read is throttled', 'machine-password'],
  ])('%s: %s gets 503 with Retry-After and the error body, fast', async (operation, _case, password) => {
    expect((await timed(basic('machine-password'))).response.status).toBe(200);
    proxy.throttle(operation);
    const before = proxy.throttled();
    try {
      const { response, ms, body } = await timed(basic(password));
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(JSON.parse(body)).toEqual({
        status: 503,
        message: 'Credentials cannot be checked at this moment; try again',
      });
      expect(proxy.throttled() - before).toBeLessThanOrEqual(2); // one retry at most, not the SDK's three attempts
      expect(ms).toBeLessThan(AUTHORIZER_CALL_WORST_CASE_MS); // one retry after up to 1 s of jitter: the stated worst case per call
    } finally {
      proxy.throttle();
    }
  });

  it.each([
    ['GetItem', 'machine-password'],
    ['UpdateItem', 'wrong-password'],
  ])(
    '%s never answered (the database paused): 503 after two attempts, within the stated time',
    async (operation, password) => {
      expect((await timed(basic('machine-password'))).response.status).toBe(200);
      proxy.hold(operation);
      const before = proxy.held();
      try {
        const { response, ms } = await timed(basic(password));
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('1');
        expect(proxy.held() - before).toBe(AUTHORIZER_CLIENT_LIMITS.maxAttempts); // 2, not the SDK's 3
        expect(ms).toBeLessThan(AUTHORIZER_CALL_WORST_CASE_MS + 1_000);
      } finally {
        proxy.hold();
      }
    },
  );
});
