import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { Authenticator } from '../../shared/auth/authenticator';
import { NonceCodec } from '../../shared/auth/nonce';
import type { AuthRequest, AuthResult } from '../../shared/auth/types';
import { userRecord } from '../../shared/auth/users';
import { MemoryNonceLedger, MemoryUserStore } from '../support/memory-auth-store';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const REALM = 'books';

/** A Digest client written independently of the code under test. */
const digestHeader = (
  challenge: string,
  {
    method = 'GET',
    uri = '/api/books',
    username = 'alice',
    password = 'pa:ss',
    qop = true,
    realm = REALM,
    nc = '00000001',
  } = {},
) => {
  const nonce = /nonce="([^"]+)"/.exec(challenge)?.[1] as string;
  const ha1 = md5(`${username}:${realm}:${password}`);
  const ha2 = md5(`${method}:${uri}`);
  const cnonce = 'c0ffee';
  const response = qop ? md5(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`) : md5(`${ha1}:${nonce}:${ha2}`);
  const qopPart = qop ? `, qop=auth, nc=${nc}, cnonce="${cnonce}"` : '';
  return `Digest username="${username}", realm="${realm}", nonce="${nonce}", uri="${uri}", response="${response}"${qopPart}`;
};

const request = (authorization: string | undefined, extra: Partial<AuthRequest> = {}): AuthRequest => ({
  method: 'GET',
  path: '/api/books',
  query: {},
  authorization,
  ...extra,
});

const denied = (result: AuthResult) => {
  if (result.ok) throw new Error('expected a denial');
  return result;
};

describe('Authenticator', () => {
  let now: number;
  let ledger: MemoryNonceLedger;
  let auth: Authenticator;

  beforeEach(async () => {
    now = 1_800_000_000;
    const users = new MemoryUserStore();
    await users.put(userRecord('alice', 'pa:ss', REALM));
    ledger = new MemoryNonceLedger();
    auth = new Authenticator(users, ledger, new NonceCodec(Buffer.from('secret'), 300, () => now), {
      realm: REALM,
      algorithms: ['MD5'],
    });
  });

  it('challenges a request without credentials with a Digest challenge (qop=auth, MD5, opaque)', async () => {
    const result = denied(await auth.authenticate(request(undefined)));
    expect(result.challenge).toMatch(
      /^Digest realm="books", qop="auth", algorithm=MD5, nonce="[\w-]+", opaque="\w+", charset="UTF-8"$/,
    );
    expect(ledger.spent.size).toBe(0); // a challenge writes nothing
  });

  it('accepts Basic, with a password containing ":"', async () => {
    const basic = `Basic ${Buffer.from('alice:pa:ss').toString('base64')}`;
    expect(await auth.authenticate(request(basic))).toEqual({ ok: true, username: 'alice', scheme: 'basic' });
  });

  it('answers an unknown user and a wrong password alike', async () => {
    const wrong = denied(await auth.authenticate(request(`Basic ${Buffer.from('alice:nope').toString('base64')}`)));
    const unknown = denied(await auth.authenticate(request(`Basic ${Buffer.from('bob:pa:ss').toString('base64')}`)));
    expect(wrong.reason).toBe(unknown.reason);
    const challenge = auth.challenge();
    const digestWrong = denied(await auth.authenticate(request(digestHeader(challenge, { password: 'nope' }))));
    const digestUnknown = denied(await auth.authenticate(request(digestHeader(challenge, { username: 'bob' }))));
    expect(digestWrong.reason).toBe(digestUnknown.reason);
  });

  it('accepts Digest with qop=auth and in the spec’s legacy form without qop', async () => {
    expect((await auth.authenticate(request(digestHeader(auth.challenge())))).ok).toBe(true);
    expect((await auth.authenticate(request(digestHeader(auth.challenge(), { qop: false })))).ok).toBe(true);
  });

  it('accepts each nonce once: a replay gets stale=true and a fresh nonce', async () => {
    const header = digestHeader(auth.challenge());
    expect((await auth.authenticate(request(header))).ok).toBe(true);
    const replay = denied(await auth.authenticate(request(header)));
    expect(replay.reason).toBe('nonce already used');
    expect(replay.challenge).toMatch(/, stale=true$/);
    expect(replay.challenge).not.toContain(/nonce="([^"]+)"/.exec(header)?.[1]);
  });

  it('refuses an expired nonce with stale=true when the digest is right, and without when it is wrong', async () => {
    const challenge = auth.challenge();
    now += 301;
    expect(denied(await auth.authenticate(request(digestHeader(challenge)))).challenge).toMatch(/stale=true$/);
    expect(denied(await auth.authenticate(request(digestHeader(challenge, { password: 'x' })))).challenge).not.toMatch(
      /stale/,
    );
  });

  it('refuses made-up and tampered nonces', async () => {
    const madeUp = digestHeader('nonce="made-up-nonce"');
    expect(denied(await auth.authenticate(request(madeUp))).reason).toBe('unknown nonce');
    const nonce = /nonce="([^"]+)"/.exec(auth.challenge())?.[1] as string;
    const tampered = `${nonce.slice(0, 5)}${nonce[5] === 'A' ? 'B' : 'A'}${nonce.slice(6)}`;
    expect(denied(await auth.authenticate(request(digestHeader(`nonce="${tampered}"`)))).reason).toBe('unknown nonce');
  });

  it('refuses a nonce signed with another deployment’s secret', async () => {
    const other = new NonceCodec(Buffer.from('other'), 300, () => now);
    const header = digestHeader(`nonce="${other.issue('MD5')}"`);
    expect(denied(await auth.authenticate(request(header))).reason).toBe('unknown nonce');
  });

  it('requires the uri to name the actual request, path and query', async () => {
    const challenge = auth.challenge();
    const other = digestHeader(challenge, { uri: '/api/books/1' });
    expect(denied(await auth.authenticate(request(other))).reason).toBe('uri does not match the request');
    const withQuery = digestHeader(auth.challenge(), { uri: '/api/books?author=Le%20Guin&year=1974' });
    expect((await auth.authenticate(request(withQuery, { query: { year: ['1974'], author: ['Le Guin'] } }))).ok).toBe(
      true,
    );
    const wrongQuery = digestHeader(auth.challenge(), { uri: '/api/books?author=x' });
    expect((await auth.authenticate(request(wrongQuery, { query: { author: ['y'] } }))).ok).toBe(false);
  });

  it('requires the configured realm', async () => {
    const header = digestHeader(auth.challenge(), { realm: 'elsewhere' });
    expect(denied(await auth.authenticate(request(header))).reason).toBe('realm mismatch');
  });

  it('signs the method into the response', async () => {
    const header = digestHeader(auth.challenge(), { method: 'GET' });
    expect((await auth.authenticate(request(header, { method: 'DELETE' }))).ok).toBe(false);
  });

  it.each([
    ['Bearer token'],
    ['Basic !!!'],
    ['Basic bm9jb2xvbg=='],
    ['Digest username="alice"'],
    [
      'Digest username="alice", realm="books", nonce="n", uri="/api/books", response="r", qop=auth-int, nc=00000001, cnonce="c"',
    ],
    [`Digest username="${'a'.repeat(5000)}"`],
  ])('denies %s with a challenge, never throwing', async (header) => {
    expect(denied(await auth.authenticate(request(header))).challenge).toMatch(/^Digest /);
  });
});
