import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBooksTable } from '../../ops/invariants';
import { apiClient } from '../support/api-client';
import { fuzzSeed } from '../support/fuzz';
import { contentTypeValue, digestParamValue, headerBytes, hostValue, oddBody } from '../support/fuzz-http';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';
import { type RawResponse, rawHttp, rawRequest } from '../support/raw-http';

/**
 * Request headers and bodies fuzzed over raw sockets against the local server, the bytes sent as
 * they are: Host and Content-Type values of every kind (charsets, case, non-ASCII, bytes that are
 * not UTF-8), Digest credentials whose parameters hold text outside RFC 7616, bodies that are not
 * UTF-8 or hold unpaired surrogates. The property: an answer the contract allows (never a 5xx; 503
 * only with Retry-After), in its JSON shape, and after every case the server still answers.
 */
const RUNS = Math.max(1, Math.round(Number(process.env.FUZZ_RUNS ?? 1_000) / 4)); // each case is two or three round trips
const SEED = fuzzSeed();
console.log(`fuzz seed ${SEED}: replay with FUZZ_SEED=${SEED} npx vitest run test/reliability/fuzz-http.test.ts`);
const params = { numRuns: RUNS, seed: SEED, endOnFailure: true } as const;

let api: Awaited<ReturnType<typeof startLocalApi>>;
let bookId: number;
const statuses = new Map<string, number>();
const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);

beforeAll(async () => {
  api = await startLocalApi();
  const created = await apiClient(api.baseUrl).call('POST', '/api/books', {
    title: 'Fuzzed',
    author: 'Headers',
    isbn: 'fuzz-http-1',
    publicationYear: 2000,
  });
  bookId = created.json.id;
});
afterAll(async () => {
  console.log('header fuzz statuses:', JSON.stringify(Object.fromEntries(statuses)));
  expect((await checkBooksTable(api.tables.documentClient, api.tables.names.books)).violations).toEqual([]);
  await api.close();
});

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Statuses a client may get from the server or a handler for a request it made up. */
const ALLOWED = new Set([200, 201, 204, 400, 401, 404, 408, 409, 413, 415, 431, 503]);

const expectContractAnswer = (response: RawResponse, what: string) => {
  expect(ALLOWED, `${what} -> ${response.status} ${response.text}`).toContain(response.status);
  if (response.status === 503) expect(response.headers['retry-after']).toBe('1');
  if (!response.headers['content-type']?.startsWith('application/json')) {
    if ([400, 408, 413, 415, 431, 503].includes(response.status))
      throw new Error(`${what}: ${response.status} without JSON`);
    return;
  }
  const body = JSON.parse(response.text);
  if (response.status === 400) {
    expect(body).toEqual({ timestamp: expect.stringMatching(ISO_MS), status: 400, errors: expect.any(Object) });
  } else if (response.status >= 400) {
    expect(body).toEqual({
      timestamp: expect.stringMatching(ISO_MS),
      status: response.status,
      message: expect.any(String),
    });
  }
  for (const name of ['location', 'link']) {
    const value = response.headers[name];
    if (value) expect(value, name).toContain(`http://127.0.0.1:${api.port}/api/books`);
  }
};

/** The check after every case: the process still serves. */
const expectStillServing = async () => {
  expect((await fetch(`${api.baseUrl}/api/openapi.json`)).status).toBe(200);
};

const line = (name: string, value: Buffer) => Buffer.concat([Buffer.from(`${name}: `), value]);

const request = (requestLine: string, headers: Buffer[], body?: Buffer) =>
  rawRequest(api.port, rawHttp(requestLine, headers, body));

const usually = <T>(common: fc.Arbitrary<T>, odd: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 2, arbitrary: common }, { weight: 1, arbitrary: odd });

/** A book every check passes, under a fresh ISBN. */
const validBook = fc
  .tuple(fc.uuid(), fc.constantFrom('Dune', 'Émile', '😀 Smile', 'café'))
  .map(([isbn, title]) =>
    Buffer.from(JSON.stringify({ title, author: 'A', isbn: isbn.replace(/-/g, ''), publicationYear: 2000 }), 'utf8'),
  );

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

describe(`fuzzing request headers and bodies over HTTP with ${RUNS} generated requests each (FUZZ_SEED=${SEED})`, () => {
  it('any Host, Content-Type and body on every write route and the list', async () => {
    const target = fc.constantFrom(
      'POST /api/books',
      'PUT /api/books/{id}',
      'PATCH /api/books/{id}',
      'GET /api/books?limit=1',
      'GET /api/openapi.json',
    );
    await fc.assert(
      fc.asyncProperty(
        target,
        // Mostly the usual values, so the success paths behind the checks are fuzzed too.
        usually(fc.constant(Buffer.from(`127.0.0.1:${api.port}`)), headerBytes(hostValue(api.port))),
        usually(fc.constant(Buffer.from('application/json')), headerBytes(contentTypeValue)),
        usually(validBook, oddBody),
        async (route, host, type, body) => {
          const [method, path] = route.split(' ') as [string, string];
          const withBody = method !== 'GET';
          const response = await request(
            `${method} ${path.replace('{id}', String(bookId))} HTTP/1.1`,
            [
              line('Host', host),
              Buffer.from(`Authorization: ${BASIC_DEMO}`),
              ...(withBody ? [line('Content-Type', type)] : []),
            ],
            withBody ? body : undefined,
          );
          count(`${method} ${response.status}`);
          expectContractAnswer(response, `${route} Host=${host.toString('hex')} Content-Type=${type.toString('hex')}`);
          await expectStillServing();
        },
      ),
      params,
    );
  });

  it('Digest credentials whose parameters hold any text, right in their digest so the echo path is reached', async () => {
    await fc.assert(
      fc.asyncProperty(digestParamValue, digestParamValue, fc.boolean(), async (cnonce, username, quoted) => {
        const challenge = (await fetch(`${api.baseUrl}/api/books`)).headers.get('www-authenticate') ?? '';
        const param = (name: string) => new RegExp(`${name}="([^"]+)"`).exec(challenge)?.[1] ?? '';
        const escaped = (text: string) => text.replace(/[\r\n]/g, '').replace(/["\\]/g, '\\$&');
        const cleanCnonce = cnonce.replace(/[\r\n]/g, '');
        const ha1 = md5(`demo:${param('realm')}:demo`);
        const response = md5(`${ha1}:${param('nonce')}:00000001:${cleanCnonce}:auth:${md5('GET:/api/books')}`);
        const cnonceParam = quoted ? `"${escaped(cleanCnonce)}"` : cleanCnonce;
        const header = `Digest username="${quoted ? 'demo' : escaped(username)}", realm="${param('realm')}", nonce="${param('nonce')}", uri="/api/books", algorithm=MD5, qop=auth, nc=00000001, cnonce=${cnonceParam}, response="${response}", opaque="${param('opaque')}"`;
        const answer = await request('GET /api/books HTTP/1.1', [
          Buffer.from(`Host: 127.0.0.1:${api.port}`),
          line('Authorization', Buffer.from(header, 'utf8')),
        ]);
        count(`digest ${answer.status}`);
        expectContractAnswer(answer, `Authorization=${header}`);
        if (answer.status === 200) {
          // Only visible ASCII reaches the echo, exactly as sent.
          expect(cleanCnonce).toMatch(/^[\t\x20-\x7e]*$/);
          expect(answer.headers['authentication-info']).toContain('cnonce=');
        }
        await expectStillServing();
      }),
      params,
    );
  });

  it('reached the answers that matter: successes, and each refusal the generators aim at', () => {
    for (const key of ['POST 201', 'POST 400', 'POST 415', 'PATCH 200', 'GET 200', 'digest 200', 'digest 401']) {
      expect(statuses.get(key) ?? 0, `${key} in ${JSON.stringify(Object.fromEntries(statuses))}`).toBeGreaterThan(0);
    }
  });
});
