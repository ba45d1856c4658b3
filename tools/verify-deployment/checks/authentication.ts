import { challengesOf, parseAuthParams } from '../../http-auth/challenges';
import { algorithmOf, answerDigest } from '../../http-auth/digest';
import { expectNoBody, fail } from '../expect';
import { basicAuthorization } from '../http';
import type { Check } from '../types';
import { call, challengeOf, expectArray, expectFreshNonces, requestTarget, unauthenticated } from './support';

/** Needs the stack's gateway responses, which `sam local start-api` does not apply. */
const GATEWAY = true;

/**
 * The 401 and its challenges, Basic, Digest and nonces. All but Basic need the stack's gateway
 * responses: the authorizer's challenge reaches a client only through the ACCESS_DENIED response.
 */
export const AUTHENTICATION_CHECKS: readonly Check[] = [
  {
    id: 'challenge',
    name: '401 without credentials, no body, Digest (qop, nonce, opaque) and Basic realm challenges',
    needsGatewayResponses: GATEWAY,
    run: async (context) => {
      const what = 'GET /api/books without credentials';
      const response = await unauthenticated(context);
      const challenges = challengeOf(response, what);
      expectNoBody(response, what);
      const digests = challengesOf(challenges, 'digest');
      if (digests.length === 0) fail(`${what}: no Digest challenge in "${response.headers.get('www-authenticate')}"`);
      for (const digest of digests) {
        for (const param of ['realm', 'nonce', 'opaque', 'qop'])
          if (!digest.params[param]) fail(`${what}: a Digest challenge without ${param}`);
        if (!/(^|,)\s*auth\s*(,|$)/i.test(digest.params.qop ?? ''))
          fail(`${what}: qop="${digest.params.qop}" lacks auth`);
      }
      const basic = challengesOf(challenges, 'basic');
      if (!basic.some((challenge) => challenge.params.realm)) fail(`${what}: no Basic challenge with a realm`);
      expectFreshNonces(context, challenges, what);
      const offered = digests.map((digest) => `Digest ${digest.params.algorithm ?? 'MD5'}`);
      return `${[...offered, 'Basic'].join(', ')}, realm "${digests[0]?.params.realm}"`;
    },
  },
  {
    id: 'fresh-nonces',
    name: 'two 401s carry different nonces',
    needsGatewayResponses: GATEWAY,
    run: async (context) => {
      for (const target of ['/api/books', '/api/books?limit=1']) {
        const what = `GET ${target} without credentials`;
        expectFreshNonces(context, challengeOf(await unauthenticated(context, target), what), what);
      }
      return undefined;
    },
  },
  {
    id: 'basic',
    name: 'Basic credentials are accepted',
    needsGatewayResponses: false,
    run: async (context) => {
      expectArray(await call(context, 'GET', '/api/books?limit=1'), 'GET /api/books?limit=1 with Basic');
      return undefined;
    },
  },
  {
    id: 'digest',
    name: 'Digest (qop=auth) is accepted with each algorithm the 401 offers',
    needsGatewayResponses: GATEWAY,
    run: async (context) => {
      const target = '/api/books?limit=1';
      const offered = challengesOf(
        challengeOf(await unauthenticated(context, target), 'GET without credentials'),
        'digest',
      );
      if (offered.length === 0) fail('the 401 offers no Digest challenge');
      const algorithms = offered.map((challenge) => challenge.params.algorithm ?? 'MD5');
      for (const algorithm of algorithms) {
        const what = `Digest ${algorithm}`;
        if (!algorithmOf({ scheme: 'digest', params: { algorithm } }))
          fail(`${what}: an algorithm RFC 7616 does not define`);
        // A nonce is good once: each algorithm answers a challenge of its own.
        const fresh = challengesOf(challengeOf(await unauthenticated(context, target), what), 'digest');
        const challenge = fresh.find((candidate) => (candidate.params.algorithm ?? 'MD5') === algorithm);
        if (!challenge) return fail(`${what}: a later 401 no longer offers it`);
        const answer = answerDigest({
          challenge,
          credentials: context.credentials,
          method: 'GET',
          uri: requestTarget(context, target),
        });
        const response = await context.http.send({ target, headers: { authorization: answer.authorization } });
        expectArray(response, `${what}: GET ${target}`);
        // Authentication-Info: a client that checks the server's proof must find it right.
        const info = parseAuthParams(response.headers.get('authentication-info'));
        if (!info.nextnonce) fail(`${what}: Authentication-Info carries no nextnonce`);
        if (info.rspauth?.toLowerCase() !== answer.rspauth)
          fail(`${what}: Authentication-Info's rspauth is not the proof RFC 7616 §3.5 defines (got ${info.rspauth})`);
        if (info.qop !== 'auth' || info.nc !== answer.nc || info.cnonce !== answer.cnonce)
          fail(
            `${what}: Authentication-Info does not echo qop=auth, nc and cnonce: ${response.headers.get('authentication-info')}`,
          );
      }
      return algorithms.join(', ');
    },
  },
  {
    id: 'wrong-password',
    name: 'a wrong password gets 401 with a fresh challenge',
    needsGatewayResponses: GATEWAY,
    run: async (context) => {
      const what = 'Basic with a wrong password';
      const wrong = { ...context.credentials, password: `${context.credentials.password}-wrong` };
      const response = await context.http.send({
        target: '/api/books',
        headers: { authorization: basicAuthorization(wrong) },
      });
      const challenges = challengeOf(response, what);
      if (!challengesOf(challenges, 'basic').some((challenge) => challenge.params.realm))
        fail(`${what}: no Basic challenge with a realm`);
      expectFreshNonces(context, challenges, what);
      return undefined;
    },
  },
  {
    id: 'stale-nonce',
    name: 'a replayed (nonce, nc) with a right digest gets 401 with stale=true and a new nonce',
    needsGatewayResponses: GATEWAY,
    run: async (context) => {
      const target = '/api/books?limit=1';
      const [challenge] = challengesOf(
        challengeOf(await unauthenticated(context, target), 'GET without credentials'),
        'digest',
      );
      if (!challenge) return fail('the 401 offers no Digest challenge');
      const uri = requestTarget(context, target);
      const first = answerDigest({ challenge, credentials: context.credentials, method: 'GET', uri });
      expectArray(
        await context.http.send({ target, headers: { authorization: first.authorization } }),
        'the nonce used once',
      );
      // The same nc again: a higher one is accepted (nonces are counted, docs/security.md).
      const replay = answerDigest({ challenge, credentials: context.credentials, method: 'GET', uri, nc: 1 });
      const what = 'the same nonce and nc again, with a right digest';
      const response = await context.http.send({ target, headers: { authorization: replay.authorization } });
      const challenges = challengeOf(response, what);
      const stale = challengesOf(challenges, 'digest').filter(
        (digest) => digest.params.stale?.toLowerCase() === 'true',
      );
      if (stale.length === 0)
        fail(`${what}: no Digest challenge with stale=true in "${response.headers.get('www-authenticate')}"`);
      if (stale.some((digest) => digest.params.nonce === challenge.params.nonce))
        fail(`${what}: stale=true with the spent nonce`);
      return undefined;
    },
  },
];
