import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { isValidUsername, parseUserList, userRecord } from '../../ops/user-records';
import { Authenticator } from '../../shared/auth/authenticator';
import { parseAuthorization } from '../../shared/auth/authorization-header';
import { constantTimeEqual, DEFAULT_DIGEST_OFFER, parseDigestOffer } from '../../shared/auth/digest';
import { MalformedAuthorizationError } from '../../shared/auth/errors';
import { decodeExtValue } from '../../shared/auth/ext-value';
import { NONCE_KEY_NAME, NonceCodec } from '../../shared/auth/nonce';
import { uriMatchesRequest } from '../../shared/auth/request-target';
import type { AuthRequest, AuthResult } from '../../shared/auth/types';
import { MemoryNonceLedger, MemoryUserStore } from '../support/memory-auth-store';

/**
 * Authentication rule by rule: why each request is denied (the reason is what the authorizer logs),
 * the challenge's exact form, nonce lifetime and spelling, and the small parsers behind them.
 */
const REALM = 'books';
const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const HASH = { MD5: md5, 'SHA-256': sha256 } as const;

const request = (authorization: AuthRequest['authorization'], extra: Partial<AuthRequest> = {}): AuthRequest => ({
  method: 'GET',
  path: '/api/books',
  query: {},
  authorization,
  ...extra,
});
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
const reasonOf = (result: AuthResult) => (result.ok ? 'allowed' : result.reason);

interface DigestOptions {
  username?: string;
  password?: string;
  algorithm?: 'MD5' | 'SHA-256';
  /** HA1 to sign with instead of the one username, realm and password give. */
  ha1?: string;
  nc?: string;
  qop?: boolean;
  extra?: string;
  omit?: string;
}

describe('the authenticator', () => {
  let now: number;
  let auth: Authenticator;

  const challengeFor = (algorithm: 'MD5' | 'SHA-256') => {
    const challenge = auth.challenge();
    const part = challenge.split(/, (?=Digest )/).find((one) => one.includes(`algorithm=${algorithm}`)) as string;
    return {
      nonce: /nonce="([^"]+)"/.exec(part)?.[1] as string,
      opaque: /opaque="([^"]+)"/.exec(part)?.[1] as string,
    };
  };

  /** A Digest header signed as a client would, from a fresh challenge. */
  const digest = (options: DigestOptions = {}, uri = '/api/books', nonceFrom?: 'MD5' | 'SHA-256') => {
    const { username = 'alice', password = 'pa:ss', algorithm = 'MD5', nc = '00000001', qop = true } = options;
    const hash = HASH[algorithm];
    const { nonce, opaque } = challengeFor(nonceFrom ?? algorithm);
    const ha1 = options.ha1 ?? hash(`${username}:${REALM}:${password}`);
    const ha2 = hash(`GET:${uri}`);
    const response = qop ? hash(`${ha1}:${nonce}:${nc}:c0ffee:auth:${ha2}`) : hash(`${ha1}:${nonce}:${ha2}`);
    const params: Record<string, string> = {
      username: `"${username}"`,
      realm: `"${REALM}"`,
      nonce: `"${nonce}"`,
      uri: `"${uri}"`,
      response: `"${response}"`,
      algorithm,
      opaque: `"${opaque}"`,
      ...(qop && { qop: 'auth', nc, cnonce: '"c0ffee"' }),
    };
    if (options.omit) delete params[options.omit];
    const text = Object.entries(params)
      .map(([name, value]) => `${name}=${value}`)
      .join(', ');
    return `Digest ${text}${options.extra ?? ''}`;
  };

  let users: MemoryUserStore;

  beforeEach(async () => {
    now = 1_800_000_000;
    users = new MemoryUserStore();
    await users.put(userRecord('alice', 'pa:ss', REALM));
    auth = new Authenticator(users, new MemoryNonceLedger(), new NonceCodec(Buffer.from('secret'), 300, () => now), {
      realm: REALM,
      algorithms: ['MD5', 'SHA-256'],
    });
  });

  it('challenges with one Digest challenge per offered algorithm, in order, then Basic; not stale unless asked', () => {
    const fields =
      /^Digest realm="books", qop="auth", algorithm=MD5, nonce="[\w-]+", opaque="([0-9a-f]{32})", charset="UTF-8", Digest realm="books", qop="auth", algorithm=SHA-256, nonce="[\w-]+", opaque="\1", charset="UTF-8", Basic realm="books", charset="UTF-8"$/;
    expect(auth.challenge()).toMatch(fields);
    expect(auth.challenge(true).match(/stale=true/g)).toHaveLength(2);
    expect(auth.challenge(true)).toMatch(/charset="UTF-8", stale=true, Basic realm="books", charset="UTF-8"$/);
  });

  it.each([
    [
      'first',
      /^Basic realm="books", charset="UTF-8", Digest realm="books", qop="auth", algorithm=MD5, [^,]+, [^,]+, charset="UTF-8"$/,
    ],
    ['none', /^Digest realm="books", qop="auth", algorithm=MD5, [^,]+, [^,]+, charset="UTF-8"$/],
    [
      'last',
      /^Digest realm="books", qop="auth", algorithm=MD5, [^,]+, [^,]+, charset="UTF-8", Basic realm="books", charset="UTF-8"$/,
    ],
  ] as const)('puts the Basic challenge where basicChallenge=%s says', (basicChallenge, field) => {
    const placed = new Authenticator(
      new MemoryUserStore(),
      new MemoryNonceLedger(),
      new NonceCodec(Buffer.from('s'), 1),
      {
        realm: REALM,
        algorithms: ['MD5'],
        basicChallenge,
      },
    );
    expect(placed.challenge()).toMatch(field);
  });

  it('quotes the realm, and gives each realm its own opaque', () => {
    const other = new Authenticator(
      new MemoryUserStore(),
      new MemoryNonceLedger(),
      new NonceCodec(Buffer.from('s'), 1),
      {
        realm: 'say "hi"',
        algorithms: ['MD5'],
      },
    );
    expect(other.challenge()).toMatch(/^Digest realm="say \\"hi\\"", /);
    expect(/opaque="([^"]+)"/.exec(other.challenge())?.[1]).not.toBe(challengeFor('MD5').opaque);
  });

  it('refuses to offer no algorithm at all', () => {
    expect(
      () =>
        new Authenticator(new MemoryUserStore(), new MemoryNonceLedger(), new NonceCodec(Buffer.from('s'), 1), {
          realm: REALM,
          algorithms: [],
        }),
    ).toThrow(new RangeError('At least one Digest algorithm must be offered'));
  });

  it.each<[string, AuthRequest['authorization'], string]>([
    ['no header', undefined, 'no credentials'],
    ['an empty list of headers', [], 'no credentials'],
    ['two headers', [basic('alice:pa:ss'), basic('alice:pa:ss')], 'repeated Authorization header'],
    ['an unreadable header', 'Digest ,=,', 'malformed Authorization header'],
    ['another scheme', 'Bearer abc', 'unsupported scheme'],
    ['Basic without a colon', basic('alice'), 'malformed Basic credentials'],
    ['Basic with a wrong password', basic('alice:pa'), 'wrong user or password'],
    ['Basic with an empty user name', basic(':pa:ss'), 'wrong user or password'],
  ])('denies %s: %s', async (_, authorization, reason) => {
    expect(reasonOf(await auth.authenticate(request(authorization)))).toBe(reason);
  });

  it('lets the right Basic credentials through, a password with colons included', async () => {
    expect(await auth.authenticate(request(basic('alice:pa:ss')))).toStrictEqual({
      ok: true,
      username: 'alice',
      scheme: 'basic',
      role: 'reader', // stored without a role: the least, never a default admin
    });
  });

  it.each(['reader', 'editor', 'admin'] as const)(
    'passes the stored role %s on, with Basic and Digest',
    async (role) => {
      await users.setRole('alice', role);
      expect(await auth.authenticate(request(basic('alice:pa:ss')))).toMatchObject({ ok: true, role });
      expect(await auth.authenticate(request(digest()))).toMatchObject({ ok: true, scheme: 'digest', role });
    },
  );

  it.each<[string, () => string, string]>([
    ['without a response', () => digest({ omit: 'response' }), 'incomplete Digest credentials'],
    ['for another realm', () => digest().replace('realm="books"', 'realm="other"'), 'realm mismatch'],
    ['with a foreign opaque', () => digest().replace(/opaque="[^"]+"/, 'opaque="0000"'), 'opaque mismatched'],
    ['with an empty opaque', () => digest().replace(/opaque="[^"]+"/, 'opaque=""'), 'opaque mismatched'],
    ['for another uri', () => digest({}, '/api/books/1'), 'uri does not match the request'],
    [
      'with an unknown algorithm',
      () => digest().replace('algorithm=MD5', 'algorithm=SHA-512'),
      'unsupported algorithm',
    ],
    ['with a short nc', () => digest({ nc: '0000001' }), 'bad qop parameters'],
    ['with a long nc', () => digest({ nc: '000000001' }), 'bad qop parameters'],
    ['with a non-hex nc', () => digest({ nc: 'x0000001' }), 'bad qop parameters'],
    ['with a nonce this service did not make', () => digest().replace(/nonce="[^"]+"/, 'nonce="abc"'), 'unknown nonce'],
    [
      'whose nonce was issued for another algorithm',
      () => digest({ algorithm: 'SHA-256' }, '/api/books', 'MD5'),
      'algorithm differs from the nonce',
    ],
    ['with a wrong password', () => digest({ password: 'nope' }), 'wrong user or password'],
  ])('denies Digest %s', async (_, header, reason) => {
    expect(reasonOf(await auth.authenticate(request(header())))).toBe(reason);
  });

  it('denies an unknown user even one who signs with the secret that stands in for unknown users', async () => {
    const standIn = md5('\u0000::'); // HA1 of the stand-in: its name is NUL, its realm and password empty
    expect(reasonOf(await auth.authenticate(request(digest({ username: 'bob', ha1: standIn }))))).toBe(
      'wrong user or password',
    );
  });

  it('lets a right Digest answer through once; the legacy form without qop gets only the next nonce', async () => {
    const header = digest({ qop: false });
    const first = await auth.authenticate(request(header));
    expect(first).toMatchObject({ ok: true, username: 'alice', scheme: 'digest' });
    expect(first.ok && first.authenticationInfo).toMatch(/^nextnonce="[\w-]+"$/);
    const again = await auth.authenticate(request(header));
    expect(reasonOf(again)).toBe('nonce already used');
    expect(again.ok || again.challenge).toMatch(/stale=true, Basic realm="books", charset="UTF-8"$/);
  });

  it.each([
    ['with qop', true],
    ['without qop (the spec’s own minimal request)', false],
  ])('lets a right Digest answer without opaque through, %s', async (_, qop) => {
    // The spec's request: username, realm, nonce, uri, response; no algorithm (MD5), no opaque.
    const header = digest({ qop })
      .replace(', algorithm=MD5', '')
      .replace(/, opaque="[^"]+"/, '');
    expect(header).not.toMatch(/opaque|algorithm/);
    expect(await auth.authenticate(request(header))).toMatchObject({ ok: true, username: 'alice', scheme: 'digest' });
  });

  it('counts a wrong password sent without opaque as a failure, like any other', async () => {
    const header = digest({ qop: false, password: 'nope' }).replace(/, opaque="[^"]+"/, '');
    expect(reasonOf(await auth.authenticate(request(header)))).toBe('wrong user or password');
  });

  it('calls an expired nonce stale when the answer was right', async () => {
    const header = digest();
    now += 301;
    const result = await auth.authenticate(request(header));
    expect(reasonOf(result)).toBe('nonce expired');
    expect(result.ok || result.challenge).toMatch(/stale=true, Basic realm="books", charset="UTF-8"$/);
  });
});

describe('nonces', () => {
  const codecAt = (clock: { now: number }, deployment?: string) =>
    new NonceCodec(Buffer.from('secret'), 300, () => clock.now, deployment);

  it('keep their key under a name that does not change between releases', () => {
    // A deployed auth table holds the key under this name: another name would make the next release
    // mint a second key, and every nonce issued under the first would fail.
    expect(NONCE_KEY_NAME).toBe('nonce-hmac-key');
  });

  it('last their lifetime to the second, and allow a minute of clock skew the other way', () => {
    const clock = { now: 1_000_000 };
    const codec = codecAt(clock);
    const nonce = codec.issue('MD5');
    const expiredAt = (offset: number) => {
      clock.now = 1_000_000 + offset;
      return codec.check(nonce);
    };
    expect(expiredAt(300)).toMatchObject({ valid: true, expired: false });
    expect(expiredAt(301)).toMatchObject({ valid: true, expired: true });
    expect(expiredAt(-60)).toMatchObject({ valid: true, expired: false });
    expect(expiredAt(-61)).toMatchObject({ valid: true, expired: true });
  });

  it('are spent until their expiry: issue time plus lifetime', () => {
    const codec = codecAt({ now: 1_000_000 });
    const claims = codec.check(codec.issue('SHA-256'));
    expect(claims).toMatchObject({ valid: true, issuedAt: 1_000_000, algorithm: 'SHA-256' });
    expect(codec.expiresAt({ issuedAt: 1_000_000, algorithm: 'SHA-256' })).toBe(1_000_300);
  });

  it('carry the Unix time in seconds by default', () => {
    const codec = new NonceCodec(Buffer.from('secret'), 300);
    const claims = codec.check(codec.issue('MD5'));
    expect(claims.valid && Math.abs(claims.issuedAt - Date.now() / 1000)).toBeLessThan(5);
  });

  it('have one spelling: a respelled nonce is not the same nonce (it could be spent twice)', () => {
    const codec = codecAt({ now: 1_000_000 });
    const nonce = codec.issue('MD5');
    expect(codec.check(nonce).valid).toBe(true);
    for (const respelled of [`${nonce}=`, `${nonce}A`, nonce.slice(0, -1)]) {
      expect(codec.check(respelled).valid, respelled).toBe(false);
    }
  });

  it('default to no binding and no deployment, the same as empty ones', () => {
    const clock = { now: 1_000_000 };
    const codec = codecAt(clock);
    expect(codec.check(codec.issue('MD5'), '').valid).toBe(true);
    expect(codec.check(codec.issue('MD5', '')).valid).toBe(true);
    expect(codecAt(clock, '').check(codec.issue('MD5')).valid).toBe(true);
    expect(codecAt(clock, 'other').check(codec.issue('MD5')).valid).toBe(false);
  });
});

describe('Authorization header grammar', () => {
  it.each([
    ['x'.repeat(4_097), 'Authorization header too long'],
    ['', 'Missing authentication scheme'],
    ['Basic a b', 'Malformed Basic credentials'],
    ['Digest =x', 'Expected a parameter name'],
    ['Digest a', 'Expected "=" after a'],
    ['Digest a=', 'Missing value of a'],
    ['Digest a=1, A=2', 'Duplicate parameter a'],
    ['Digest a=1 b=2', 'Expected "," between parameters'],
    ['Digest ', 'Digest credentials without parameters'],
    ['Digest a="open', 'Unterminated quoted string'],
    ['Digest a="ends in \\', 'Unterminated quoted string'],
  ])('refuses %j: %s', (header, message) => {
    expect(() => parseAuthorization(header)).toThrow(new MalformedAuthorizationError(message));
    expect(new MalformedAuthorizationError(message).name).toBe('MalformedAuthorizationError');
  });

  it('takes a header of 4,096 characters, trims it, and allows spaces and tabs around = and ,', () => {
    expect(parseAuthorization(`Basic ${'A'.repeat(4_090)}`)).toStrictEqual({
      scheme: 'basic',
      token: 'A'.repeat(4_090),
    });
    expect(parseAuthorization('  Basic   YWJj  ')).toStrictEqual({ scheme: 'basic', token: 'YWJj' });
    const digest = parseAuthorization('Digest \ta \t=\t "x,\\"y" \t, ,b=2');
    expect(digest).toStrictEqual({
      scheme: 'digest',
      params: new Map([
        ['a', 'x,"y'],
        ['b', '2'],
      ]),
    });
  });
});

describe('the Digest uri', () => {
  it('stays relative when its query carries another URL, and a parameter without values is absent', () => {
    const target = { method: 'GET', path: '/api/books', authorization: undefined };
    expect(uriMatchesRequest('/api/books?next=http://x/y', { ...target, query: { next: ['http://x/y'] } })).toBe(true);
    expect(uriMatchesRequest('/api/books', { ...target, query: { gone: undefined } })).toBe(true);
  });
});

describe('small parsers', () => {
  it('Digest offers: empty means both; names in order, any case; unknown or repeated names are refused', () => {
    expect(parseDigestOffer(undefined)).toBe(DEFAULT_DIGEST_OFFER);
    expect(parseDigestOffer('  ')).toBe(DEFAULT_DIGEST_OFFER);
    expect(parseDigestOffer('sha-256')).toStrictEqual(['SHA-256']);
    expect(parseDigestOffer(' SHA-256 , md5 ')).toStrictEqual(['SHA-256', 'MD5']);
    expect(parseDigestOffer('MD5,MD5')).toBeUndefined();
    expect(parseDigestOffer('MD5,SHA-512')).toBeUndefined();
  });

  it('constant-time comparison still tells strings of different lengths apart', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('abcd', 'abc')).toBe(false);
  });

  it('RFC 8187 values: UTF-8 only, an optional language, escapes of two hex digits, valid UTF-8', () => {
    expect(decodeExtValue("UTF-8''j%C3%B6rg")).toBe('jörg');
    expect(decodeExtValue("utf-8'de-AT'j%c3%b6rg")).toBe('jörg');
    expect(decodeExtValue("UTF-8''")).toBe('');
    for (const bad of ["xUTF-8''a", "UTF-8''a b", "UTF-8'!'a", "UTF-8''%4", "UTF-8''%C3", "ISO-8859-1''a"]) {
      expect(decodeExtValue(bad), bad).toBeUndefined();
    }
  });

  it('user names: 1 to 128 characters, none of them white space, colon, quote or backslash', () => {
    for (const good of ['a', 'jörg', 'x'.repeat(128)]) expect(isValidUsername(good), good).toBe(true);
    for (const bad of ['', 'x'.repeat(129), 'a b', 'a:b', 'a"b', 'a\\b', ' a', 'a\n']) {
      expect(isValidUsername(bad), bad).toBe(false);
    }
  });

  it('LOCAL_USERS: name:password pairs, trimmed, empty entries skipped, colons allowed in the password', () => {
    expect(parseUserList(' demo:demo , ,alice:pa:ss,')).toStrictEqual([
      { username: 'demo', password: 'demo' },
      { username: 'alice', password: 'pa:ss' },
    ]);
    expect(parseUserList('bob:a;b')).toStrictEqual([{ username: 'bob', password: 'a;b' }]);
    expect(() => parseUserList('bob:')).toThrow('LOCAL_USERS entry for "bob" has an empty password');
    expect(() => parseUserList('demo:demo;ann:secret')).toThrow(
      'LOCAL_USERS entry for "demo" holds ";name:" in its password: separate pairs with commas',
    );
    expect(() => parseUserList('demo:demo; ann:secret')).toThrow(/separate pairs with commas/);
    for (const bad of ['nopassword', ':pw', 'a b:pw']) {
      expect(() => parseUserList(bad), bad).toThrow(`LOCAL_USERS entry "${bad}" is not name:password`);
    }
  });
});
