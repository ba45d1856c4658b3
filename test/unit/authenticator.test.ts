import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { Authenticator } from '../../shared/auth/authenticator';
import { NonceCodec } from '../../shared/auth/nonce';
import type { AuthRequest, AuthResult } from '../../shared/auth/types';
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
  const opaque = /opaque="([^"]+)"/.exec(challenge)?.[1] as string;
  const ha1 = md5(`${username}:${realm}:${password}`);
  const ha2 = md5(`${method}:${uri}`);
  const cnonce = 'c0ffee';
  const response = qop ? md5(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`) : md5(`${ha1}:${nonce}:${ha2}`);
  const qopPart = qop ? `, qop=auth, nc=${nc}, cnonce="${cnonce}"` : '';
  return `Digest username="${username}", realm="${realm}", nonce="${nonce}", uri="${uri}", response="${response}", opaque="${opaque}"${qopPart}`;
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

  it('challenges a request without credentials with a Digest challenge (qop=auth, MD5, opaque), then Basic', async () => {
    const result = denied(await auth.authenticate(request(undefined)));
    expect(result.challenge).toMatch(
      /^Digest realm="books", qop="auth", algorithm=MD5, nonce="[\w-]+", opaque="\w+", charset="UTF-8", Basic realm="books", charset="UTF-8"$/,
    );
    expect(ledger.used.size).toBe(0); // a challenge writes nothing
  });

  it('accepts Basic, with a password containing ":"', async () => {
    const basic = `Basic ${Buffer.from('alice:pa:ss').toString('base64')}`;
    expect(await auth.authenticate(request(basic))).toEqual({
      ok: true,
      username: 'alice',
      scheme: 'basic',
      role: 'reader', // stored without a role
    });
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
    expect(replay.challenge).toMatch(/, stale=true, Basic realm="books", charset="UTF-8"$/);
    expect(replay.challenge).not.toContain(/nonce="([^"]+)"/.exec(header)?.[1]);
  });

  it('accepts a nonce of the legacy form (no nc) once, and a legacy use after a counted one never', async () => {
    const legacy = digestHeader(auth.challenge(), { qop: false });
    expect((await auth.authenticate(request(legacy))).ok).toBe(true);
    expect(denied(await auth.authenticate(request(legacy))).reason).toBe('nonce already used');
    const challenge = auth.challenge();
    expect(await auth.authenticate(request(digestHeader(challenge)))).toMatchObject({ ok: true });
    expect(denied(await auth.authenticate(request(digestHeader(challenge, { qop: false })))).reason).toBe(
      'nonce already used',
    );
  });

  it('refuses an expired nonce with stale=true when the digest is right, and without when it is wrong', async () => {
    const challenge = auth.challenge();
    now += 301;
    expect(denied(await auth.authenticate(request(digestHeader(challenge)))).challenge).toMatch(
      /stale=true, Basic realm="books", charset="UTF-8"$/,
    );
    expect(denied(await auth.authenticate(request(digestHeader(challenge, { password: 'x' })))).challenge).not.toMatch(
      /stale/,
    );
  });

  it('refuses made-up and tampered nonces', async () => {
    const opaque = /opaque="[^"]+"/.exec(auth.challenge())?.[0];
    const madeUp = digestHeader(`nonce="made-up-nonce", ${opaque}`);
    expect(denied(await auth.authenticate(request(madeUp))).reason).toBe('unknown nonce');
    const nonce = /nonce="([^"]+)"/.exec(auth.challenge())?.[1] as string;
    const tampered = `${nonce.slice(0, 5)}${nonce[5] === 'A' ? 'B' : 'A'}${nonce.slice(6)}`;
    const header = digestHeader(`nonce="${tampered}", ${opaque}`);
    expect(denied(await auth.authenticate(request(header))).reason).toBe('unknown nonce');
  });

  it('refuses a nonce signed with another deployment’s secret', async () => {
    const other = new NonceCodec(Buffer.from('other'), 300, () => now);
    const opaque = /opaque="[^"]+"/.exec(auth.challenge())?.[0];
    const header = digestHeader(`nonce="${other.issue('MD5')}", ${opaque}`);
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

describe('Authenticator: offers, names and the next nonce', () => {
  const H = (algorithm: 'MD5' | 'SHA-256', s: string) =>
    createHash(algorithm === 'MD5' ? 'md5' : 'sha256')
      .update(s, 'utf8')
      .digest('hex');
  const now = () => 1_800_000_000;
  const codec = (secret = 'secret', deployment = 'books-table') =>
    new NonceCodec(Buffer.from(secret), 300, now, deployment);

  /** The challenges of one WWW-Authenticate value, by algorithm. */
  const challenges = (value: string) =>
    Object.fromEntries(
      [
        ...value.matchAll(/Digest realm="([^"]*)", qop="auth", algorithm=([\w-]+), nonce="([^"]+)", opaque="(\w+)"/g),
      ].map(([, realm, algorithm, nonce, opaque]) => [algorithm, { realm, nonce, opaque }]),
    ) as Record<string, { realm: string; nonce: string; opaque: string }>;

  const answer = (
    challenge: { realm: string; nonce: string; opaque: string },
    algorithm: 'MD5' | 'SHA-256',
    { username = 'jörg', password = 'pässwörd', uri = '/api/books', nc = '00000001', cnonce = 'abc', name = '' } = {},
  ) => {
    const ha1 = H(algorithm, `${username}:${challenge.realm}:${password}`);
    const response = H(algorithm, `${ha1}:${challenge.nonce}:${nc}:${cnonce}:auth:${H(algorithm, `GET:${uri}`)}`);
    const user = name || `username="${username}"`;
    return {
      ha1,
      header: `Digest ${user}, realm="${challenge.realm}", nonce="${challenge.nonce}", uri="${uri}", algorithm=${algorithm}, qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}", opaque="${challenge.opaque}"`,
    };
  };

  const setup = async (algorithms: ('MD5' | 'SHA-256')[] = ['MD5', 'SHA-256'], realm = REALM, nonceCodec = codec()) => {
    const users = new MemoryUserStore();
    await users.put(userRecord('jörg', 'pässwörd', realm));
    const ledger = new MemoryNonceLedger();
    return { auth: new Authenticator(users, ledger, nonceCodec, { realm, algorithms }), ledger };
  };

  const request = (authorization: AuthRequest['authorization']): AuthRequest => ({
    method: 'GET',
    path: '/api/books',
    query: {},
    authorization,
  });

  it('offers one Digest challenge per algorithm in one field, MD5 first, then Basic, each announcing UTF-8', async () => {
    const { auth } = await setup();
    const value = auth.challenge();
    expect(Object.keys(challenges(value))).toEqual(['MD5', 'SHA-256']);
    expect(value.match(/charset="UTF-8"/g)).toHaveLength(3);
    expect(value).toMatch(/, Basic realm="books", charset="UTF-8"$/);
  });

  it.each(['MD5', 'SHA-256'] as const)('accepts a UTF-8 user answering the %s challenge', async (algorithm) => {
    const { auth } = await setup();
    const challenge = challenges(auth.challenge())[algorithm] as { realm: string; nonce: string; opaque: string };
    const result = await auth.authenticate(request(answer(challenge, algorithm).header));
    expect(result).toMatchObject({ ok: true, username: 'jörg', scheme: 'digest' });
  });

  it('accepts Basic with UTF-8 credentials', async () => {
    const { auth } = await setup();
    const basic = `Basic ${Buffer.from('jörg:pässwörd', 'utf8').toString('base64')}`;
    expect(await auth.authenticate(request(basic))).toEqual({
      ok: true,
      username: 'jörg',
      scheme: 'basic',
      role: 'reader', // stored without a role
    });
  });

  it('reads username* (RFC 8187) and refuses it beside a plain username', async () => {
    const { auth } = await setup();
    const offer = () => challenges(auth.challenge())['SHA-256'] as { realm: string; nonce: string; opaque: string };
    const extended = answer(offer(), 'SHA-256', { name: "username*=UTF-8''j%C3%B6rg" }).header;
    expect((await auth.authenticate(request(extended))).ok).toBe(true);
    const both = answer(offer(), 'SHA-256', { name: `username="jörg", username*=UTF-8''j%C3%B6rg` }).header;
    expect(denied(await auth.authenticate(request(both))).reason).toBe('incomplete Digest credentials');
    const latin1 = answer(offer(), 'SHA-256', { name: "username*=ISO-8859-1''j%F6rg" }).header;
    expect((await auth.authenticate(request(latin1))).ok).toBe(false);
  });

  it('refuses userhash=true, which it never offers, whether the name is hashed or not', async () => {
    const { auth } = await setup();
    const offer = () => challenges(auth.challenge())['SHA-256'] as { realm: string; nonce: string; opaque: string };
    const plain = answer(offer(), 'SHA-256', { name: 'username="jörg", userhash=TRUE' }).header;
    expect(denied(await auth.authenticate(request(plain))).reason).toBe('userhash not offered');
    const hashed = H('SHA-256', `jörg:${REALM}`);
    const withHash = answer(offer(), 'SHA-256', { name: `username="${hashed}", userhash=true` }).header;
    expect(denied(await auth.authenticate(request(withHash))).reason).toBe('userhash not offered');
    const saidFalse = answer(offer(), 'SHA-256', { name: 'username="jörg", userhash=false' }).header;
    expect((await auth.authenticate(request(saidFalse))).ok).toBe(true);
  });

  it('refuses an algorithm it does not offer, even with a well-formed answer', async () => {
    const { auth } = await setup(['SHA-256']);
    const value = auth.challenge();
    expect(Object.keys(challenges(value))).toEqual(['SHA-256']);
    const sha = challenges(value)['SHA-256'] as { realm: string; nonce: string; opaque: string };
    const md5Answer = answer(sha, 'MD5').header;
    expect(denied(await auth.authenticate(request(md5Answer))).reason).toBe('unsupported algorithm');
  });

  it('denies two Authorization fields, even if each alone would pass', async () => {
    const { auth } = await setup();
    const basic = `Basic ${Buffer.from('jörg:pässwörd', 'utf8').toString('base64')}`;
    expect(denied(await auth.authenticate(request([basic, basic]))).reason).toBe('repeated Authorization header');
    expect((await auth.authenticate(request([basic]))).ok).toBe(true);
  });

  it('binds a nonce to its realm and its deployment', async () => {
    const shared = codec('shared-key', 'deployment-a');
    const staging = await setup(['MD5'], 'staging', shared);
    const books = await setup(['MD5'], REALM, shared);
    const stagingChallenge = challenges(staging.auth.challenge()).MD5 as {
      realm: string;
      nonce: string;
      opaque: string;
    };
    const replayedInBooks = answer(
      { ...stagingChallenge, realm: REALM, opaque: challenges(books.auth.challenge()).MD5?.opaque as string },
      'MD5',
    ).header;
    expect(denied(await books.auth.authenticate(request(replayedInBooks))).reason).toBe('unknown nonce');

    const elsewhere = await setup(['MD5'], REALM, codec('shared-key', 'deployment-b'));
    const header = answer(
      challenges(books.auth.challenge()).MD5 as { realm: string; nonce: string; opaque: string },
      'MD5',
    ).header;
    expect(denied(await elsewhere.auth.authenticate(request(header))).reason).toBe('unknown nonce');
    expect((await books.auth.authenticate(request(header))).ok).toBe(true);
  });

  it('hands over a next nonce with the server’s proof, and that nonce works once without a new challenge', async () => {
    const { auth } = await setup();
    const first = challenges(auth.challenge())['SHA-256'] as { realm: string; nonce: string; opaque: string };
    const { header, ha1 } = answer(first, 'SHA-256', { cnonce: 'c1' });
    const result = await auth.authenticate(request(header));
    if (!result.ok) throw new Error(result.reason);
    const info = result.authenticationInfo as string;
    const nextnonce = /nextnonce="([^"]+)"/.exec(info)?.[1] as string;
    // rspauth (RFC 7616 §3.5): the response digest with an empty method, over the nonce the client answered.
    const rspauth = H('SHA-256', `${ha1}:${first.nonce}:00000001:c1:auth:${H('SHA-256', ':/api/books')}`);
    expect(info).toBe(`nextnonce="${nextnonce}", qop=auth, rspauth="${rspauth}", cnonce="c1", nc=00000001`);

    const next = answer({ ...first, nonce: nextnonce }, 'SHA-256', { cnonce: 'c2' }).header;
    expect((await auth.authenticate(request(next))).ok).toBe(true);
    expect(denied(await auth.authenticate(request(next))).reason).toBe('nonce already used');
  });

  it('counts a nonce: each use with a higher nc passes; the same nc again or a lower one is refused', async () => {
    const { auth } = await setup();
    const challenge = challenges(auth.challenge()).MD5 as { realm: string; nonce: string; opaque: string };
    for (const nc of ['00000001', '00000002', '00000003', '0000000a']) {
      expect((await auth.authenticate(request(answer(challenge, 'MD5', { nc }).header))).ok).toBe(true);
    }
    for (const nc of ['0000000a', '00000009', '00000001']) {
      const refused = denied(await auth.authenticate(request(answer(challenge, 'MD5', { nc }).header)));
      expect(refused.reason).toBe('nonce already used');
      expect(refused.challenge).toMatch(/stale=true/);
    }
  });

  it('lets one of concurrent uses of one (nonce, nc) pair through', async () => {
    const { auth } = await setup();
    const fresh = challenges(auth.challenge()).MD5 as { realm: string; nonce: string; opaque: string };
    const racers = Array.from({ length: 4 }, () => answer(fresh, 'MD5', { nc: '00000001' }).header);
    const results = await Promise.all(racers.map((header) => auth.authenticate(request(header))));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
  });
});
