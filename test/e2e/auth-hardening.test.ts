import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { digestAuthorization } from '../support/api-client';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/**
 * What an anonymous or authenticated caller can send that once made the authorizer or the local
 * gateway fail, and the RFC details clients rely on: through the local server, on Dynoxide.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi();
  await new DynamoUserStore(api.tables.documentClient, api.tables.names.auth).put({
    ...userRecord('jörg', 'pässwörd', 'books'),
    role: 'admin',
  });
});
afterAll(() => api.close());

/** A raw request, so headers can repeat and carry any name (fetch would merge or refuse them). */
const raw = (path: string, headers: Record<string, string | string[]>) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    const request = httpRequest(`${api.baseUrl}${path}`, { headers }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode as number, headers: response.headers }));
    });
    request.on('error', reject);
    request.end();
  });

const challengeFor = async (path: string) => {
  const response = await fetch(`${api.baseUrl}${path}`);
  expect(response.status).toBe(401);
  return response.headers.get('www-authenticate') as string;
};

describe('no 5xx for anything an anonymous caller sends', () => {
  it.each([2_043, 2_044, 2_048, 3_000])('a Basic user name of %i bytes is an unknown user (401)', async (bytes) => {
    const basic = `Basic ${Buffer.from(`${'u'.repeat(bytes)}:pw`).toString('base64')}`;
    expect((await raw('/api/books', { authorization: basic })).status).toBe(401);
  });

  it.each([2_043, 2_044, 3_000])(
    'a Digest user name of %i bytes with a fresh nonce is an unknown user (401)',
    async (bytes) => {
      const challenge = await challengeFor('/api/books');
      const header = digestAuthorization(challenge, 'GET', '/api/books', {
        username: 'ü'.repeat(bytes / 2),
        password: 'x',
      });
      expect((await raw('/api/books', { authorization: header })).status).toBe(401);
    },
  );

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'a query parameter or header named %s is just a name, with or without credentials',
    async (name) => {
      expect((await raw(`/api/books?${name}=1&${name}=2`, {})).status).toBe(401);
      expect((await raw(`/api/books?${name}=1&${name}=2`, { authorization: BASIC_DEMO })).status).toBe(200);
      expect((await raw('/api/books', { [name]: 'x', authorization: BASIC_DEMO })).status).toBe(200);
      expect((await raw('/api/books/1', { [name]: 'x' })).status).toBe(401);
    },
  );

  it('a Digest uri with prototype names in its query is checked like any other', async () => {
    const path = '/api/books?constructor=1&__proto__=2';
    const header = digestAuthorization(await challengeFor(path), 'GET', path);
    expect((await raw(path, { authorization: header })).status).toBe(200);
  });
});

describe('Digest binds the whole request target', () => {
  it('a digest computed for ?author=a=b is refused on ?author=a, and one for ?author=what?junk=1 on ?author=what', async () => {
    for (const [signed, sent] of [
      ['/api/books?author=a=b', '/api/books?author=a'],
      ['/api/books?author=what?junk=1', '/api/books?author=what'],
    ] as const) {
      const header = digestAuthorization(await challengeFor(sent), 'GET', signed);
      expect((await raw(sent, { authorization: header })).status).toBe(401);
    }
  });

  it('two Authorization fields are refused, even two valid ones', async () => {
    expect((await raw('/api/books', { authorization: [BASIC_DEMO, BASIC_DEMO] })).status).toBe(401);
    expect((await raw('/api/books', { authorization: [BASIC_DEMO] })).status).toBe(200);
  });
});

describe('UTF-8 users and the algorithms offered', () => {
  it('offers an MD5 Digest challenge then the Basic challenge in one WWW-Authenticate field, each with charset="UTF-8"', async () => {
    const challenge = await challengeFor('/api/books');
    expect([...challenge.matchAll(/algorithm=([\w-]+)/g)].map(([, algorithm]) => algorithm)).toEqual(['MD5']);
    expect(challenge).toMatch(/^Digest realm="books", .*, Basic realm="books", charset="UTF-8"$/);
    expect(challenge.match(/charset="UTF-8"/g)).toHaveLength(2);
  });
});

describe('a successful Digest response hands over the next nonce', () => {
  it('Authentication-Info carries nextnonce, rspauth, qop, nc and cnonce; the next nonce works once without a challenge', async () => {
    const path = '/api/books';
    const first = await raw(path, { authorization: digestAuthorization(await challengeFor(path), 'GET', path) });
    expect(first.status).toBe(200);
    const info = String(first.headers['authentication-info']);
    expect(info).toMatch(/^nextnonce="[\w-]+", qop=auth, rspauth="[0-9a-f]{32}", cnonce="[0-9a-f]+", nc=00000001$/);

    const nextnonce = /nextnonce="([^"]+)"/.exec(info)?.[1] as string;
    const challenge = await challengeFor(path); // realm and opaque only; its own nonce is not used
    const withNext = digestAuthorization(challenge.replace(/nonce="[^"]+"/, `nonce="${nextnonce}"`), 'GET', path);
    const second = await raw(path, { authorization: withNext });
    expect(second.status).toBe(200);
    expect(second.headers['authentication-info']).toBeDefined();
    expect((await raw(path, { authorization: withNext })).status).toBe(401);
  });

  it('also on an error status: the nonce was spent either way', async () => {
    const path = '/api/books/999999999';
    const response = await raw(path, { authorization: digestAuthorization(await challengeFor(path), 'GET', path) });
    expect(response.status).toBe(404);
    expect(String(response.headers['authentication-info'])).toMatch(/^nextnonce="/);
  });
});
