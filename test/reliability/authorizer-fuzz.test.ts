import { createHash } from 'node:crypto';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAllowed, toAuthorizerEvent } from '../../local/authorizer-gateway';
import { prepareFunctionEnvironment } from '../support/local-api';
import { captureLogs } from '../support/log-capture';
import { proxyEventFor } from '../support/proxy-event';

/**
 * The authorizer fuzzed from a real starting point: the right realm, a validly signed nonce from
 * its own challenge, the real user and password on Dynoxide. Each case varies one part of an
 * otherwise correct Digest answer (the uri, the user name, nc, qop, cnonce, algorithm); a model
 * says whether the answer must be accepted (200) or denied (401), and the authorizer must never
 * throw. A guard fails the run if too few cases get as far as the digest comparison, so the
 * properties cannot pass by bouncing off the header parser.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** The share of cases that must reach the digest comparison (the model puts about 70 % there). */
const MIN_DEEP_SHARE = 0.5;

type Algorithm = 'MD5' | 'SHA-256';
const H = (algorithm: Algorithm, text: string) =>
  createHash(algorithm === 'MD5' ? 'md5' : 'sha256')
    .update(text, 'utf8')
    .digest('hex');
const REALM = 'books';
const USER = { username: 'demo', password: 'demo' };
/** Denial reasons the authenticator gives only after it compared the digest. */
const PAST_THE_COMPARISON = new Set(['wrong user or password', 'nonce expired', 'nonce already used']);

let authorize: (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
let logs: ReturnType<typeof captureLogs>;
beforeAll(async () => {
  // INFO, so each denial's reason is logged and the guard can see how far a case got.
  // Both algorithms, so the property answers either (the default offers MD5 alone).
  await prepareFunctionEnvironment({ POWERTOOLS_LOG_LEVEL: 'INFO', DIGEST_ALGORITHM: 'MD5,SHA-256' });
  ({ handler: authorize } = await import('../../functions/authorizer/handler'));
  logs = captureLogs();
  console.info(`authorizer fuzz: ${RUNS} runs per property, seed ${SEED} (replay with FUZZ_SEED=${SEED})`);
});
afterAll(() => logs?.restore());

// --- arbitraries -------------------------------------------------------------------------------

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const queryName = fc.oneof(
  fc.constantFrom('author', 'year', 'limit', 'cursor', 'constructor', '__proto__', 'toString', 'hasOwnProperty'),
  fc.constantFrom('a b', 'ö', 'a=b', '%41', '+', 'é\u0301', '日本'),
  text.filter((name) => name !== ''),
);
const queryValue = fc.oneof(fc.constantFrom('', 'a=b', 'what?junk=1', 'Jörg', '%31', '1 2', '+'), text);
/** The request's query as name/value pairs: repeats, prototype names, non-ASCII, escapes. */
const queryPairs = fc
  .array(fc.tuple(queryName, queryValue), { maxLength: 6 })
  .chain((pairs) =>
    pairs.length === 0
      ? fc.constant(pairs)
      : fc.integer({ min: 0, max: pairs.length - 1 }).map((i) => [...pairs, pairs[i] as [string, string]]),
  );

const encodeAll = (value: string) =>
  [...Buffer.from(value, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
const targetOf = (pairs: [string, string][], encode: (text: string) => string = encodeURIComponent) =>
  pairs.length === 0 ? '/api/books' : `/api/books?${pairs.map(([n, v]) => `${encode(n)}=${encode(v)}`).join('&')}`;

type Variation =
  | { part: 'none' }
  | { part: 'uri'; change: 'reorder' | 'escape-everything' | 'drop' | 'add' | 'alter'; seed: number }
  | { part: 'username'; username: string }
  | { part: 'nc'; nc: string }
  | { part: 'qop'; qop: string | undefined }
  | { part: 'cnonce'; cnonce: string }
  | { part: 'algorithm'; algorithm: string | undefined };

const longName = fc.oneof(
  fc.integer({ min: 2_000, max: 2_100 }).map((n) => 'a'.repeat(n)),
  fc.integer({ min: 1_000, max: 1_050 }).map((n) => 'ö'.repeat(n)), // two bytes each: 2,000 to 2,100 bytes
);
const variation: fc.Arbitrary<Variation> = fc.oneof(
  fc.constant({ part: 'none' as const }),
  fc.record({
    part: fc.constant('uri' as const),
    change: fc.constantFrom('reorder', 'escape-everything', 'drop', 'add', 'alter') as fc.Arbitrary<
      'reorder' | 'escape-everything' | 'drop' | 'add' | 'alter'
    >,
    seed: fc.nat(),
  }),
  fc.record({ part: fc.constant('username' as const), username: fc.oneof(text, longName, fc.constant('Demo')) }),
  fc.record({
    part: fc.constant('nc' as const),
    nc: fc.oneof(fc.stringMatching(/^[0-9a-fA-F]{8}$/), fc.constantFrom('1', '000000001', 'zzzzzzzz', ''), text),
  }),
  fc.record({
    part: fc.constant('qop' as const),
    qop: fc.constantFrom('auth', undefined, 'auth-int', 'AUTH', 'auth,auth-int'),
  }),
  // Clients send hex or base64; RFC 7616 §3.4 makes a cnonce an ASCII-only quoted string. Unicode
  // text (which travels as UTF-8) is sent too, and must be refused as malformed, never a 5xx.
  fc.record({
    part: fc.constant('cnonce' as const),
    // Weighted towards ASCII, which reaches the digest comparison; Unicode now stops at the parser.
    cnonce: fc.oneof(
      { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 }), weight: 6 },
      { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), weight: 1 },
      { arbitrary: fc.constant(''), weight: 1 },
    ),
  }),
  fc.record({
    part: fc.constant('algorithm' as const),
    algorithm: fc.constantFrom('MD5', 'md5', 'SHA-256', 'sha-256', undefined, 'MD5-sess', 'SHA-512', 'SHA-256-sess'),
  }),
);

// --- the client and the model --------------------------------------------------------------------

const quoted = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;

/** The uri the client signs, after the variation: equal to the request target unless it says otherwise. */
const signedUri = (pairs: [string, string][], variation: Variation): { uri: string; same: boolean } => {
  if (variation.part !== 'uri') return { uri: targetOf(pairs), same: true };
  const at = pairs.length === 0 ? 0 : variation.seed % pairs.length;
  switch (variation.change) {
    case 'reorder':
      return { uri: targetOf([...pairs.slice(at), ...pairs.slice(0, at)]), same: true };
    case 'escape-everything':
      return { uri: targetOf(pairs, encodeAll), same: true };
    case 'drop':
      return { uri: targetOf(pairs.filter((_, i) => i !== at)), same: pairs.length === 0 };
    case 'add':
      return { uri: targetOf([...pairs, ['constructor', '1']]), same: false };
    case 'alter':
      return pairs.length === 0
        ? { uri: '/api/books/', same: false }
        : { uri: targetOf(pairs.map((pair, i) => (i === at ? [pair[0], `${pair[1]}x`] : pair))), same: false };
  }
};

const expectAccepted = (variation: Variation, uriSame: boolean, offered: Algorithm) => {
  switch (variation.part) {
    case 'none':
      return true;
    case 'uri':
      return uriSame;
    case 'username':
      return variation.username === USER.username;
    case 'nc':
      return /^[0-9a-f]{8}$/i.test(variation.nc);
    case 'qop':
      return variation.qop === 'auth' || variation.qop === undefined;
    case 'cnonce':
      return variation.cnonce !== '' && /^[\t\x20-\x7e]+$/.test(variation.cnonce);
    case 'algorithm':
      return (variation.algorithm ?? 'MD5').toUpperCase() === offered;
  }
};

/** The authorizer's answer to one request, as the gateway would turn it into a status. */
const call = async (target: string, authorization?: string) => {
  const event = proxyEventFor({
    method: 'GET',
    target,
    headers: authorization ? { Authorization: authorization } : {},
  });
  if (!event) throw new Error(`no route for ${target}`);
  const authorizerEvent = toAuthorizerEvent(event);
  logs.clear();
  const result = await authorize(authorizerEvent);
  const denial = logs.lines.find((line) => line.message === 'Authentication failed');
  return {
    status: isAllowed(result, authorizerEvent.methodArn) ? 200 : 401,
    challenge: String(result.context?.challenge ?? ''),
    reason: denial ? String(denial.reason) : 'accepted',
  };
};

describe('the authorizer from a real challenge, one part varied at a time (Dynoxide)', () => {
  it('answers 200 or 401 as the model says, never throwing, and most cases reach the digest comparison', async () => {
    let cases = 0;
    let deep = 0;
    const parts = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        queryPairs,
        variation,
        fc.constantFrom<Algorithm>('MD5', 'SHA-256'),
        async (pairs, varied, offered) => {
          const target = targetOf(pairs);
          const challenge = (await call(target)).challenge;
          const found = new RegExp(`algorithm=${offered}, nonce="([^"]+)", opaque="(\\w+)"`).exec(challenge);
          expect(found).not.toBeNull();
          const [, nonce, opaque] = found as RegExpExecArray;

          const { uri, same } = signedUri(pairs, varied);
          const username = varied.part === 'username' ? varied.username : USER.username;
          const nc = varied.part === 'nc' ? varied.nc : '00000001';
          const qop = varied.part === 'qop' ? varied.qop : 'auth';
          const cnonce = varied.part === 'cnonce' ? varied.cnonce : 'c0ffee';
          const algorithm = varied.part === 'algorithm' ? varied.algorithm : offered;
          // The client hashes with the algorithm it was offered, whatever it writes in the header.
          const ha1 = H(offered, `${username}:${REALM}:${USER.password}`);
          const ha2 = H(offered, `GET:${uri}`);
          const response =
            qop === undefined
              ? H(offered, `${ha1}:${nonce}:${ha2}`)
              : H(offered, `${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`);
          const header = [
            `Digest username=${quoted(username)}`,
            `realm="${REALM}"`,
            `nonce="${nonce}"`,
            `uri=${quoted(uri)}`,
            ...(algorithm === undefined ? [] : [`algorithm=${algorithm}`]),
            ...(qop === undefined ? [] : [`qop=${qop}`, `nc=${nc}`, `cnonce=${quoted(cnonce)}`]),
            `response="${response}"`,
            `opaque="${opaque}"`,
          ].join(', ');

          const answer = await call(target, header);
          const accepted = expectAccepted(varied, same, offered);
          expect(answer.status, `${answer.reason}: ${header}`).toBe(accepted ? 200 : 401);
          cases++;
          parts.set(varied.part, (parts.get(varied.part) ?? 0) + 1);
          if (answer.reason === 'accepted' || PAST_THE_COMPARISON.has(answer.reason)) deep++;
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.info(`authorizer fuzz: ${deep} of ${cases} cases reached the digest comparison`, Object.fromEntries(parts));
    expect(cases).toBe(RUNS);
    expect(deep / cases).toBeGreaterThanOrEqual(MIN_DEEP_SHARE);
  }, 300_000);
});
