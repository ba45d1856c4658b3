import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_HEADERS } from '../../shared/http/standard-headers';
import { type Configured, GATEWAY_RESPONSE_TABLE } from '../support/gateway-response-table';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/**
 * The gateway responses npm start emulates answer as the stack configures them
 * (test/infra/gateway-response-table.test.ts): status, body shape and headers. The functions' table
 * is out of reach (a closed port), so the authorizer fails as its account store would.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi({ env: { DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', AWS_MAX_ATTEMPTS: '1' } });
});
afterAll(() => api.close());

const EMULATED: Array<[type: string, request: () => Promise<Response>]> = [
  ['ACCESS_DENIED', () => fetch(`${api.baseUrl}/api/books`)],
  ['AUTHORIZER_FAILURE', () => fetch(`${api.baseUrl}/api/books`, { headers: { authorization: BASIC_DEMO } })],
  ['MISSING_AUTHENTICATION_TOKEN', () => fetch(`${api.baseUrl}/api/no-such-route`)],
  [
    'REQUEST_TOO_LARGE',
    () => fetch(`${api.baseUrl}/api/books`, { method: 'POST', body: 'x'.repeat(11 * 1024 * 1024) }),
  ],
];

describe('npm start answers as the stack’s gateway responses', () => {
  it.each(EMULATED)('%s', async (type, request) => {
    const expected = GATEWAY_RESPONSE_TABLE[type] as Configured;
    const response = await request();
    expect(response.status).toBe(Number(expected.status));
    const text = await response.text();
    if (expected.body.shape === 'none') expect(text).toBe('');
    else expect(JSON.parse(text)).toMatchObject({ status: Number(expected.status), message: expected.body.message });
    for (const [name, value] of Object.entries(GATEWAY_HEADERS)) expect(response.headers.get(name), name).toBe(value);
    expect(response.headers.get('retry-after')).toBe(expected.retryAfter ? '1' : null);
  });
});
