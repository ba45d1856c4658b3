import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseAuthParams, parseChallenges } from '../../tools/http-auth/challenges';
import { answerDigest } from '../../tools/http-auth/digest';
import { CHECKS } from '../../tools/verify-deployment/checks';
import { nextLink } from '../../tools/verify-deployment/checks/support';
import { parseBaseUrl, parseOptions } from '../../tools/verify-deployment/cli';
import { expectUnderBase } from '../../tools/verify-deployment/expect';
import { formatResult, formatSummary } from '../../tools/verify-deployment/report';

/** The deployment check's own parts: challenge parsing, its Digest client, URLs and the report. */

const paramOf = (authorization: string, name: string) => parseAuthParams(authorization.replace(/^Digest /, ''))[name];

describe('parsing WWW-Authenticate', () => {
  it('splits several challenges in one field, commas inside quoted values kept', () => {
    const field =
      'Digest realm="books, and more", qop="auth,auth-int", algorithm=MD5, nonce="n\\"1", opaque="o", ' +
      'Digest realm="books", algorithm=SHA-256, nonce="n2", Basic realm="books", charset="UTF-8", Negotiate, Bearer abc==';
    expect(parseChallenges(field)).toEqual([
      {
        scheme: 'digest',
        params: { realm: 'books, and more', qop: 'auth,auth-int', algorithm: 'MD5', nonce: 'n"1', opaque: 'o' },
      },
      { scheme: 'digest', params: { realm: 'books', algorithm: 'SHA-256', nonce: 'n2' } },
      { scheme: 'basic', params: { realm: 'books', charset: 'UTF-8' } },
      { scheme: 'negotiate', params: {} },
      { scheme: 'bearer', params: {}, token68: 'abc==' },
    ]);
  });

  it('takes schemes and parameter names in any case, and white space around "="', () => {
    expect(parseChallenges('DIGEST Realm = "r" , NONCE=x')).toEqual([
      { scheme: 'digest', params: { realm: 'r', nonce: 'x' } },
    ]);
  });

  it('finds nothing in an absent or empty field', () => {
    expect(parseChallenges(null)).toEqual([]);
    expect(parseChallenges(' , ')).toEqual([]);
  });
});

describe('the Digest client', () => {
  const rfc7616 = {
    credentials: { username: 'Mufasa', password: 'Circle of Life' },
    realm: 'http-auth@example.org',
    nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
    cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
    opaque: 'FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS',
  };
  const answer = (algorithm: string, extra: Record<string, string> = {}) =>
    answerDigest({
      challenge: {
        scheme: 'digest',
        params: {
          realm: rfc7616.realm,
          qop: 'auth, auth-int',
          algorithm,
          nonce: rfc7616.nonce,
          opaque: rfc7616.opaque,
          ...extra,
        },
      },
      credentials: rfc7616.credentials,
      method: 'GET',
      uri: '/dir/index.html',
      cnonce: rfc7616.cnonce,
    });

  it.each([
    ['MD5', '8ca523f5e9506fed4657c9700eebdbec'],
    ['SHA-256', '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1'],
  ])('answers RFC 7616 §3.9.1’s %s example with its response', (algorithm, response) => {
    const { authorization } = answer(algorithm);
    expect(paramOf(authorization, 'response')).toBe(response);
    expect(paramOf(authorization, 'opaque')).toBe(rfc7616.opaque);
    expect(paramOf(authorization, 'qop')).toBe('auth');
    expect(paramOf(authorization, 'nc')).toBe('00000001');
    expect(paramOf(authorization, 'uri')).toBe('/dir/index.html');
  });

  it('derives the -sess secret from the nonce and cnonce (RFC 7616 §3.4.2)', () => {
    const md5 = (text: string) => createHash('md5').update(text).digest('hex');
    const ha1 = md5(`${md5(`Mufasa:${rfc7616.realm}:Circle of Life`)}:${rfc7616.nonce}:${rfc7616.cnonce}`);
    const expected = md5(`${ha1}:${rfc7616.nonce}:00000001:${rfc7616.cnonce}:auth:${md5('GET:/dir/index.html')}`);
    const { authorization } = answer('MD5-sess');
    expect(paramOf(authorization, 'response')).toBe(expected);
    expect(paramOf(authorization, 'algorithm')).toBe('MD5-sess');
  });

  it('sends the user name hashed when the challenge asks for userhash', () => {
    const { authorization } = answer('SHA-256', { userhash: 'true' });
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(paramOf(authorization, 'username')).toBe(sha256(`Mufasa:${rfc7616.realm}`));
    expect(paramOf(authorization, 'userhash')).toBe('true');
  });

  it('refuses an algorithm it does not know, and a challenge without qop="auth"', () => {
    expect(() => answer('SHA-1')).toThrow(/unknown algorithm SHA-1/);
    expect(() => answer('MD5', { qop: 'auth-int' })).toThrow(/no qop="auth"/);
  });
});

describe('URLs the API writes', () => {
  const base = 'https://abc.execute-api.eu-west-1.amazonaws.com/prod';

  it('are under the base URL only with its origin and its stage path', () => {
    expect(expectUnderBase(base, `${base}/api/books/7`, '/api/books/7', 'Location').href).toBe(`${base}/api/books/7`);
    expect(() =>
      expectUnderBase(base, 'https://abc.execute-api.eu-west-1.amazonaws.com/api/books/7', '/api/books/7', 'Location'),
    ).toThrow(/is not https:\/\/abc\..*\/prod\/api\/books\/7/);
    expect(() => expectUnderBase(base, '/prod/api/books/7', '/api/books/7', 'Location')).toThrow(/not an absolute URL/);
    expect(() =>
      expectUnderBase(
        base,
        `http://abc.execute-api.eu-west-1.amazonaws.com/prod/api/books/7`,
        '/api/books/7',
        'Location',
      ),
    ).toThrow();
    expect(() => expectUnderBase(base, null, '/api/books/7', 'Location')).toThrow(/Location: missing/);
  });

  it('on another origin (a CDN in front of the stage URL) are named in one line pointing to publicBaseUrl', () => {
    const cdn = 'https://books.example.com';
    const failure = () => expectUnderBase(cdn, `${base}/api/books/7`, '/api/books/7', 'Location');
    expect(failure).toThrow(
      `Location: "${base}/api/books/7" is on https://abc.execute-api.eu-west-1.amazonaws.com, not ${cdn}: ` +
        `behind a CDN or proxy, deploy with -c publicBaseUrl=${cdn} (PUBLIC_BASE_URL for npm start)`,
    );
    expect(() => failure()).not.toThrow(/\n/);
  });

  it('find the next page in a Link field among other links', () => {
    expect(nextLink('<https://x/prod/api/books?limit=1&cursor=3>; rel="next"')).toBe(
      'https://x/prod/api/books?limit=1&cursor=3',
    );
    expect(nextLink('<https://x/a>; rel="prev", <https://x/b>; rel="last next"')).toBe('https://x/b');
    expect(nextLink('<https://x/a>; rel="nextish"')).toBeUndefined();
    expect(nextLink(null)).toBeUndefined();
  });
});

describe('the command line', () => {
  it('takes one base URL, keeps its stage path and drops a trailing slash', () => {
    expect(parseOptions(['https://abc.example/prod/'])).toEqual({
      baseUrl: 'https://abc.example/prod',
      username: 'demo',
      skipGatewayResponses: false,
    });
    expect(parseOptions(['http://127.0.0.1:3000', '--user', 'alice', '--skip-gateway-responses'])).toEqual({
      baseUrl: 'http://127.0.0.1:3000',
      username: 'alice',
      skipGatewayResponses: true,
    });
    expect(parseOptions(['https://a/prod', '--origin', 'https://app.example:8443'])).toMatchObject({
      origin: 'https://app.example:8443',
    });
  });

  it.each([
    [['http://a', 'http://b'], /one base URL only/],
    [['ftp://a'], /not an http\(s\) URL/],
    [['nowhere'], /is not a URL/],
    [['https://a/prod/api/books'], /ends in \/api\/books: give the base URL/],
    [['https://a/prod?x=1'], /query or fragment/],
    [['https://user:pw@a/prod'], /credentials do not belong in the URL/],
    [['https://a', '--password', 'pw'], /Unknown option '--password'/],
    [['https://a', '--user', ''], /--user needs a name/],
    [['https://a', '--origin', 'https://app.example/'], /--origin "https:\/\/app.example\/" is not an origin/],
    [['https://a', '--origin', 'app.example'], /is not an origin/],
  ])('refuses %j', (args, message) => {
    expect(() => parseOptions(args)).toThrow(message);
  });

  it('reads the base URL as the ApiUrl output without /api/books', () => {
    expect(parseBaseUrl('https://abc.execute-api.eu-west-1.amazonaws.com/prod')).toBe(
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
    );
  });
});

describe('the report', () => {
  it('prints one line per check, the reason after a colon, and a summary that counts skips apart', () => {
    expect(formatResult({ name: 'x', outcome: 'PASS' })).toBe('PASS  x');
    expect(formatResult({ name: 'x', outcome: 'FAIL', detail: 'why' })).toBe('FAIL  x: why');
    const results = [
      { name: 'a', outcome: 'PASS' },
      { name: 'b', outcome: 'SKIP', detail: 'r' },
    ] as const;
    expect(formatSummary(results, false)).toBe('OK: 1 passed, 0 failed, 1 skipped');
    expect(formatSummary([...results, { name: 'c', outcome: 'FAIL' }], false)).toBe(
      'FAILED: 1 passed, 1 failed, 1 skipped',
    );
    expect(formatSummary(results, true)).toBe('INTERRUPTED: 1 passed, 0 failed, 1 skipped');
  });

  it('has checks with distinct ids and names, and prerequisites that run before them', () => {
    const ids = CHECKS.map((check) => check.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(CHECKS.map((check) => check.name)).size).toBe(CHECKS.length);
    CHECKS.forEach((check, index) => {
      for (const need of check.needs ?? []) expect(ids.indexOf(need), `${check.id} needs ${need}`).toBeLessThan(index);
      expect(check.name).not.toContain(':');
    });
  });
});
