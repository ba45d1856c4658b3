import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBooksTable } from '../../ops/invariants';
import { apiClient, digestAuthorization } from '../support/api-client';
import { expectAllowedResponse } from '../support/contract';
import { fuzzSeed, queryText, requestTarget } from '../support/fuzz';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/**
 * The list's query string fuzzed end to end, through the local server as a client reaches it: the
 * gateway's query maps, the authorizer (Basic, and Digest, whose `uri` carries the query) and the
 * handler, against Dynoxide. Names repeat, are the ones every JavaScript object inherits
 * (`constructor`, `__proto__`, ...), or are the list's own (`limit`, `cursor`, `author`, `year`);
 * values are non-ASCII, malformed escapes, real cursors. The property: an authenticated client gets
 * 200 or 400 with the contract's body, never a 5xx.
 */
const RUNS = Math.max(1, Math.round(Number(process.env.FUZZ_RUNS ?? 1_000) / 4)); // each case is an HTTP round trip or two
const SEED = fuzzSeed();
console.log(`fuzz seed ${SEED}: replay with FUZZ_SEED=${SEED} npx vitest run test/reliability/fuzz-query.test.ts`);
const params = { numRuns: RUNS, seed: SEED, endOnFailure: true } as const;

let api: Awaited<ReturnType<typeof startLocalApi>>;

beforeAll(async () => {
  api = await startLocalApi();
  const client = apiClient(api.baseUrl);
  const authors = ['Frank Herbert', 'Émile Zola', 'E\u0301mile Zola'];
  for (let i = 1; i <= 12; i++) {
    const book = {
      title: `Book ${i}`,
      author: authors[i % 3],
      isbn: `fuzz-query-${i}`,
      publicationYear: 1960 + (i % 6),
    };
    expect((await client.call('POST', '/api/books', book)).status).toBe(201);
  }
});

afterAll(async () => {
  expect((await checkBooksTable(api.tables.documentClient, api.tables.names.books)).violations).toEqual([]);
  await api.close();
});

const get = async (target: string, authorization: string | undefined) => {
  const response = await fetch(`${api.baseUrl}${target}`, {
    headers: authorization === undefined ? {} : { authorization },
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

const expectListAnswer = (response: Awaited<ReturnType<typeof get>>) =>
  expectAllowedResponse('ListBooks', { statusCode: response.status, body: response.text, headers: {} });

describe(`fuzzing GET /api/books's query string over HTTP with ${RUNS} generated queries (FUZZ_SEED=${SEED})`, () => {
  const statuses = new Map<string, number>();
  const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);

  it('with Basic credentials: 200 or 400 as the contract shapes them, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(queryText, async (query) => {
        const response = await get(requestTarget('/api/books', query), BASIC_DEMO);
        count(`basic ${response.status}`);
        expectListAnswer(response);
      }),
      params,
    );
  });

  it('with Digest, the query inside the signed uri: a client that signs the target it sends always gets through', async () => {
    await fc.assert(
      fc.asyncProperty(queryText, async (query) => {
        const target = requestTarget('/api/books', query);
        const challenged = await get(target, undefined);
        expect(challenged.status).toBe(401);
        const challenge = challenged.headers.get('www-authenticate') ?? '';
        const response = await get(target, digestAuthorization(challenge, 'GET', target));
        count(`digest ${response.status}`);
        expectListAnswer(response);
      }),
      params,
    );
  });

  it('reached both answers and both schemes', () => {
    console.log('query fuzz statuses:', JSON.stringify(Object.fromEntries(statuses)));
    for (const key of ['basic 200', 'basic 400', 'digest 200', 'digest 400']) {
      expect(statuses.get(key) ?? 0, key).toBeGreaterThan(RUNS / 20);
    }
  });
});
