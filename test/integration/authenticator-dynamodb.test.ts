import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { Authenticator } from '../../shared/auth/authenticator';
import type { DigestAlgorithm } from '../../shared/auth/digest';
import { DEFAULT_LOCKOUT_POLICY, type LockoutPolicy } from '../../shared/auth/lockout';
import { NonceCodec } from '../../shared/auth/nonce';
import type { AuthRequest, AuthResult } from '../../shared/auth/types';
import { DynamoNonceLedger } from '../../shared/store/auth/dynamodb-nonce-ledger';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { createTestTables } from '../support/dynamodb';

/**
 * The authenticator on the stores the authorizer really uses: users and used nonces in a DynamoDB
 * Local auth table. Several authenticators on one table stand for several function containers.
 */
const REALM = 'books';
const H = (algorithm: DigestAlgorithm, text: string) =>
  createHash(algorithm === 'MD5' ? 'md5' : 'sha256')
    .update(text, 'utf8')
    .digest('hex');

let tables: Awaited<ReturnType<typeof createTestTables>>;
/** A new container: its own authenticator, the shared table and nonce key. */
/** Lockouts are tested in guessing-limit-dynamodb.test.ts: here every answer is evaluated. */
const NEVER_LOCKS: LockoutPolicy = { ...DEFAULT_LOCKOUT_POLICY, lockoutAfter: 1_000_000, failureLimit: 1_000_000 };
const container = (algorithms: DigestAlgorithm[] = ['MD5', 'SHA-256'], lockout = NEVER_LOCKS) =>
  new Authenticator(
    new DynamoUserStore(tables.documentClient, tables.names.auth),
    new DynamoNonceLedger(tables.documentClient, tables.names.auth),
    new NonceCodec(Buffer.from('shared-key'), 300, undefined, tables.names.auth),
    { realm: REALM, algorithms, lockout },
  );

beforeAll(async () => {
  tables = await createTestTables();
  const users = new DynamoUserStore(tables.documentClient, tables.names.auth);
  await users.put(userRecord('alice', 'pa:ss', REALM));
  await users.put(userRecord('jörg', 'pässwörd', REALM));
});

const request = (authorization: string | string[] | undefined, uri = '/api/books'): AuthRequest => {
  const url = new URL(uri, 'http://x');
  const query: Record<string, string[]> = Object.create(null);
  for (const [name, value] of url.searchParams) query[name] = [...(query[name] ?? []), value];
  return { method: 'GET', path: url.pathname, query, authorization };
};

/** The nonce and opaque of one offered challenge. */
const offered = (auth: Authenticator, algorithm: DigestAlgorithm) => {
  const match = new RegExp(`algorithm=${algorithm}, nonce="([^"]+)", opaque="(\\w+)"`).exec(auth.challenge());
  if (!match) throw new Error(`no ${algorithm} challenge`);
  return { nonce: match[1] as string, opaque: match[2] as string };
};

/** A Digest answer computed here, independently of the code under test. */
const digest = (
  challenge: { nonce: string; opaque: string },
  {
    algorithm = 'MD5' as DigestAlgorithm,
    username = 'alice',
    password = 'pa:ss',
    uri = '/api/books',
    nc = '00000001',
    cnonce = 'c0ffee',
  } = {},
) => {
  const ha1 = H(algorithm, `${username}:${REALM}:${password}`);
  const response = H(algorithm, `${ha1}:${challenge.nonce}:${nc}:${cnonce}:auth:${H(algorithm, `GET:${uri}`)}`);
  return `Digest username="${username}", realm="${REALM}", nonce="${challenge.nonce}", uri="${uri}", algorithm=${algorithm}, qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}", opaque="${challenge.opaque}"`;
};

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
const reason = (result: AuthResult) => (result.ok ? 'accepted' : result.reason);

describe('Authenticator on the DynamoDB user store and nonce ledger', () => {
  it('accepts Basic and Digest (MD5 and SHA-256) for stored users, a UTF-8 one included', async () => {
    const auth = container();
    expect(await auth.authenticate(request(basic('alice', 'pa:ss')))).toMatchObject({ ok: true, username: 'alice' });
    expect(await auth.authenticate(request(basic('jörg', 'pässwörd')))).toMatchObject({ ok: true, username: 'jörg' });
    for (const algorithm of ['MD5', 'SHA-256'] as const) {
      const header = digest(offered(auth, algorithm), { algorithm, username: 'jörg', password: 'pässwörd' });
      expect(await auth.authenticate(request(header))).toMatchObject({ ok: true, username: 'jörg', scheme: 'digest' });
    }
  });

  it('answers an unknown user, a wrong password and an unstorable name alike, never throwing', async () => {
    const auth = container();
    const wrong = reason(await auth.authenticate(request(basic('alice', 'nope'))));
    // DynamoDB refuses partition keys over 2,048 bytes; the names straddle that limit in bytes and stay
    // under the header length guard (4 KB), so they reach the user lookup.
    for (const name of ['bob', 'a'.repeat(2_040), 'a'.repeat(2_048), 'ö'.repeat(1_100), 'a'.repeat(3_000)]) {
      expect(reason(await auth.authenticate(request(basic(name, 'pa:ss'))))).toBe(wrong);
      const header = digest(offered(auth, 'MD5'), { username: name });
      expect(reason(await auth.authenticate(request(header)))).toBe(
        reason(await auth.authenticate(request(digest(offered(auth, 'MD5'), { password: 'nope' })))),
      );
    }
  });

  it('refuses a nonce answered a second time with the same nc, in another container too', async () => {
    const challenge = offered(container(), 'MD5');
    const header = digest(challenge);
    expect(reason(await container().authenticate(request(header)))).toBe('accepted');
    expect(reason(await container().authenticate(request(header)))).toBe('nonce already used');
  });

  it('accepts a nonce again while its nc rises, in any container; a lower nc gets stale=true', async () => {
    const challenge = offered(container(), 'SHA-256');
    for (const nc of ['00000001', '00000002', '00000003']) {
      const header = digest(challenge, { algorithm: 'SHA-256', nc, cnonce: `c${nc}` });
      expect(reason(await container().authenticate(request(header)))).toBe('accepted');
    }
    const lower = await container().authenticate(request(digest(challenge, { algorithm: 'SHA-256', nc: '00000002' })));
    expect(reason(lower)).toBe('nonce already used');
    expect(lower.ok ? '' : lower.challenge).toMatch(/stale=true/);
  });

  it('lets exactly one of many concurrent uses of one (nonce, nc) pair through, across containers', async () => {
    const challenge = offered(container(), 'MD5');
    const containers = Array.from({ length: 8 }, () => container());
    const results = await Promise.all(containers.map((auth) => auth.authenticate(request(digest(challenge)))));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok).map(reason)).toEqual(Array(7).fill('nonce already used'));
  });

  it('hands over a next nonce that another container accepts once', async () => {
    const first = container();
    const challenge = offered(first, 'MD5');
    const result = await first.authenticate(request(digest(challenge)));
    const nextnonce = /nextnonce="([^"]+)"/.exec(result.ok ? (result.authenticationInfo ?? '') : '')?.[1];
    expect(nextnonce).toBeDefined();
    const next = digest({ ...challenge, nonce: nextnonce as string }, { cnonce: 'next' });
    expect(reason(await container().authenticate(request(next)))).toBe('accepted');
    expect(reason(await container().authenticate(request(next)))).toBe('nonce already used');
  });

  it('binds the answer to every value of a repeated query name, not only the last', async () => {
    const auth = container();
    const signed = '/api/books?author=a&author=b';
    const header = () => digest(offered(auth, 'MD5'), { uri: signed });
    expect(reason(await auth.authenticate(request(header(), '/api/books?author=c&author=b')))).not.toBe('accepted');
    expect(reason(await auth.authenticate(request(header(), '/api/books?author=b')))).not.toBe('accepted');
    expect(reason(await auth.authenticate(request(header(), signed)))).toBe('accepted');
  });
});
