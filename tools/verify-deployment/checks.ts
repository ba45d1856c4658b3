import { isDeepStrictEqual } from 'node:util';
import { type Challenge, challengesOf, noncesOf, parseAuthParams, parseChallenges } from './challenges';
import { algorithmOf, answerDigest } from './digest';
import {
  expectErrorBody,
  expectNoBody,
  expectStatus,
  expectUnderBase,
  fail,
  isIsoTimestamp,
  parseJson,
} from './expect';
import { basicAuthorization, type HttpResponse, WHOLE_LIST_TIMEOUT_MS } from './http';
import type { Book, BookFields } from './run-books';
import type { Check, CheckContext } from './types';

/** The contract's messages, written here again rather than imported: the check reads the contract, not the code. */
export const CONTRACT = {
  mediaType: 'Content-Type must be application/json, in UTF-8',
  tooLarge: 'Request body must be at most 65536 bytes',
  maxBodyBytes: 65_536,
  titleRequired: 'Title is required',
  invalidYear: 'Invalid publication year',
  invalidJson: 'Request body must be valid JSON',
} as const;

const withBasic = (context: CheckContext, headers: Record<string, string> = {}) => ({
  authorization: basicAuthorization(context.credentials),
  ...headers,
});

/** A request with Basic credentials and, when there is a body, the JSON media type. */
const call = (context: CheckContext, method: string, target: string, body?: unknown, timeoutMs?: number) =>
  context.http.send({
    method,
    target,
    headers: withBasic(context, body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(body !== undefined && { body: JSON.stringify(body) }),
    ...(timeoutMs !== undefined && { timeoutMs }),
  });

/** The path and query as sent, the base's path (the stage) in front: what a Digest `uri` must name. */
const requestTarget = (context: CheckContext, target: string) => {
  const url = new URL(context.http.urlOf(target));
  return `${url.pathname}${url.search}`;
};

/** A 401's challenges, each Digest nonce noted as seen. */
const challengeOf = (response: HttpResponse, what: string): Challenge[] => {
  expectStatus(response, 401, what);
  const field = response.headers.get('www-authenticate');
  if (!field) return fail(`${what}: 401 without a WWW-Authenticate header`);
  return parseChallenges(field);
};

const unauthenticated = (context: CheckContext, target = '/api/books') => context.http.send({ target });

/** A fresh nonce: not carried by any 401 earlier in this run. */
const expectFreshNonces = (context: CheckContext, challenges: Challenge[], what: string) => {
  const nonces = noncesOf(challenges);
  if (nonces.length === 0) fail(`${what}: no Digest challenge with a nonce`);
  for (const nonce of nonces) {
    if (context.seenNonces.has(nonce)) fail(`${what}: nonce "${nonce}" was already sent in an earlier 401`);
  }
  for (const nonce of nonces) context.seenNonces.add(nonce);
};

const expectBookBody = (response: HttpResponse, expected: BookFields, what: string, id?: number): Book => {
  const body = parseJson(response, what) as Record<string, unknown>;
  if (typeof body !== 'object' || body === null) return fail(`${what}: the body is not a book`);
  if (!Number.isSafeInteger(body.id) || (body.id as number) < 1) fail(`${what}: id ${JSON.stringify(body.id)}`);
  if (id !== undefined && body.id !== id) fail(`${what}: id ${body.id}, expected ${id}`);
  for (const [field, value] of Object.entries(expected)) {
    if (body[field] !== value)
      fail(`${what}: ${field} is ${JSON.stringify(body[field])}, expected ${JSON.stringify(value)}`);
  }
  for (const field of ['createdAt', 'updatedAt']) {
    if (!isIsoTimestamp(body[field])) fail(`${what}: ${field} ${JSON.stringify(body[field])} is not an ISO date-time`);
  }
  return body as unknown as Book;
};

const fieldsOf = ({ title, author, isbn, publicationYear }: Book): BookFields => ({
  title,
  author,
  isbn,
  publicationYear,
});

const bookAt = (context: CheckContext, index: number): Book =>
  context.books.current.get(context.books.ids()[index] as number) ?? fail('the book this check needs is gone');

const expectArray = (response: HttpResponse, what: string): Record<string, unknown>[] => {
  expectStatus(response, 200, what);
  const body = parseJson(response, what);
  if (!Array.isArray(body)) return fail(`${what}: the body is not a JSON array`);
  return body as Record<string, unknown>[];
};

const idsOf = (books: Record<string, unknown>[]) => books.map((book) => book.id);

/** The `rel="next"` target of a `Link` field, or undefined. */
export const nextLink = (field: string | null): string | undefined => {
  for (const link of (field ?? '').split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/s.exec(link);
    if (match && /;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(match[2] as string)) return match[1];
  }
  return undefined;
};

/** Sends a request that must be refused, recording any book a wrongly accepting server made. */
const refusedCreate = async (context: CheckContext, headers: Record<string, string>, body: string | Buffer) => {
  const response = await context.http.send({
    method: 'POST',
    target: '/api/books',
    headers: withBasic(context, headers),
    body,
  });
  if (response.status === 201) {
    try {
      context.books.recordCreated(JSON.parse(response.text));
    } catch {
      // No id to record: the clean-up's sweep by the run's author finds the book.
    }
  }
  return response;
};

const GATEWAY = true;

/**
 * The checks, in the order they run. Those that need API Gateway's gateway responses (the 401 and
 * its challenges, Digest, which needs a challenge to answer, and the unknown-route 404) say so:
 * `--skip-gateway-responses` reports them as skipped.
 */
export const CHECKS: readonly Check[] = [
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
        // The contract's Authentication-Info. Its rspauth value is not checked: the service computes
        // it over the next nonce, where RFC 7616 §3.5 reads as the request's nonce (reported).
        const info = parseAuthParams(response.headers.get('authentication-info'));
        if (!info.nextnonce) fail(`${what}: Authentication-Info carries no nextnonce`);
        if (!/^[0-9a-f]+$/.test(info.rspauth ?? '')) fail(`${what}: Authentication-Info carries no rspauth`);
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
    name: 'a replayed nonce with a right digest gets 401 with stale=true and a new nonce',
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
      const replay = answerDigest({ challenge, credentials: context.credentials, method: 'GET', uri, nc: 2 });
      const what = 'the same nonce again, with a right digest';
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
  {
    id: 'create',
    name: 'POST /api/books gets 201 with the book and a Location under the base URL',
    needsGatewayResponses: false,
    needs: ['basic'],
    run: async (context) => {
      for (const n of [1, 2]) {
        const fields = context.books.fields(n);
        const what = `POST book ${n}`;
        const response = await call(context, 'POST', '/api/books', fields);
        if (response.status === 201) context.books.recordCreated(parseJson(response, what));
        expectStatus(response, 201, what);
        const book = expectBookBody(response, fields, what);
        expectUnderBase(
          context.baseUrl,
          response.headers.get('location'),
          `/api/books/${book.id}`,
          `${what}: Location`,
        );
      }
      return `ids ${context.books.ids().join(', ')}`;
    },
  },
  {
    id: 'duplicate-isbn',
    name: 'POST with an ISBN already taken gets 409 with no body',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const taken = bookAt(context, 0);
      const what = 'POST with book 1’s ISBN';
      const response = await refusedCreate(
        context,
        { 'content-type': 'application/json' },
        JSON.stringify({ ...context.books.fields(3), isbn: taken.isbn }),
      );
      expectStatus(response, 409, what);
      expectNoBody(response, what);
      return undefined;
    },
  },
  {
    id: 'read',
    name: 'GET /api/books/{id} reads the book back',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const book = bookAt(context, 0);
      const response = await call(context, 'GET', `/api/books/${book.id}`);
      expectStatus(response, 200, 'GET the created book');
      const read = expectBookBody(response, fieldsOf(book), 'GET the created book', book.id);
      if (read.createdAt !== book.createdAt)
        fail(`GET the created book: createdAt ${read.createdAt}, not ${book.createdAt}`);
      return undefined;
    },
  },
  {
    id: 'replace',
    name: 'PUT /api/books/{id} replaces the book and keeps createdAt',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const book = bookAt(context, 0);
      const fields = { ...fieldsOf(book), title: `${book.title} replaced`, publicationYear: 1950 };
      const response = await call(context, 'PUT', `/api/books/${book.id}`, fields);
      expectStatus(response, 200, 'PUT');
      const replaced = expectBookBody(response, fields, 'PUT', book.id);
      if (replaced.createdAt !== book.createdAt) fail(`PUT: createdAt ${replaced.createdAt}, was ${book.createdAt}`);
      context.books.record(replaced);
      return undefined;
    },
  },
  {
    id: 'patch',
    name: 'PATCH /api/books/{id} changes the fields sent and nothing else',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const book = bookAt(context, 0);
      const title = `verify-deployment ${context.books.runId} book 1 patched`;
      const response = await call(context, 'PATCH', `/api/books/${book.id}`, { title });
      expectStatus(response, 200, 'PATCH');
      const patched = expectBookBody(response, { ...fieldsOf(book), title }, 'PATCH', book.id);
      if (Date.parse(patched.updatedAt) < Date.parse(book.updatedAt))
        fail(`PATCH: updatedAt ${patched.updatedAt} is before ${book.updatedAt}`);
      context.books.record(patched);
      return undefined;
    },
  },
  {
    id: 'filter',
    name: 'GET /api/books?author=&year= lists exactly the matching books',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const author = encodeURIComponent(context.books.author.toUpperCase());
      const both = expectArray(await call(context, 'GET', `/api/books?author=${author}`), 'author filter');
      if (!isDeepStrictEqual(idsOf(both), context.books.ids()))
        fail(
          `author filter (any case): ids ${JSON.stringify(idsOf(both))}, expected ${JSON.stringify(context.books.ids())}`,
        );
      const second = bookAt(context, 1);
      const target = `/api/books?author=${encodeURIComponent(context.books.author.toLowerCase())}&year=${second.publicationYear}`;
      const one = expectArray(await call(context, 'GET', target), 'author and year filter');
      if (!isDeepStrictEqual(idsOf(one), [second.id]))
        fail(`author and year filter: ids ${JSON.stringify(idsOf(one))}, expected [${second.id}]`);
      return undefined;
    },
  },
  {
    id: 'whole-list',
    name: 'GET /api/books, the whole list, parses to its end and holds every book this run created',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      let response = await call(context, 'GET', '/api/books', undefined, WHOLE_LIST_TIMEOUT_MS);
      let note = '';
      if (response.status === 422) {
        // The operator's cap on unpaged lists (contract): the filtered list streams the same way.
        note = '; the whole list is capped by the operator (422), so the unpaged author-filtered list was read';
        response = await call(
          context,
          'GET',
          `/api/books?author=${encodeURIComponent(context.books.author)}`,
          undefined,
          WHOLE_LIST_TIMEOUT_MS,
        );
      }
      const books = expectArray(response, 'the whole list');
      const listed = new Map(books.map((book) => [book.id, book]));
      for (const book of context.books.current.values()) {
        const found = listed.get(book.id);
        if (!found) fail(`the whole list (${books.length} books) lacks book ${book.id}, which this run created`);
        if (!isDeepStrictEqual(fieldsOf(found as unknown as Book), fieldsOf(book)))
          fail(`the whole list holds book ${book.id} as ${JSON.stringify(found)}`);
      }
      const ids = idsOf(books) as number[];
      if (ids.some((id, index) => index > 0 && id <= (ids[index - 1] as number)))
        fail('the whole list is not in ascending id order');
      return `${books.length} books, ${Buffer.byteLength(response.text)} bytes${note}`;
    },
  },
  {
    id: 'link',
    name: 'a paged list’s Link rel="next" is an absolute URL under the base URL and leads to the next page',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const query = `author=${encodeURIComponent(context.books.author)}&limit=1`;
      const first = await call(context, 'GET', `/api/books?${query}`);
      const page = expectArray(first, 'the first page');
      const [firstId, secondId] = context.books.ids();
      if (!isDeepStrictEqual(idsOf(page), [firstId]))
        fail(`the first page: ids ${JSON.stringify(idsOf(page))}, expected [${firstId}]`);
      const next = nextLink(first.headers.get('link'));
      const url = expectUnderBase(context.baseUrl, next ?? null, '/api/books', 'Link rel="next"');
      if (!url.searchParams.get('cursor')) fail(`Link rel="next": "${next}" carries no cursor`);
      const following = await call(context, 'GET', url.href);
      const nextPage = expectArray(following, 'the page Link names');
      if (!isDeepStrictEqual(idsOf(nextPage), [secondId]))
        fail(`the page Link names: ids ${JSON.stringify(idsOf(nextPage))}, expected [${secondId}]`);
      if (nextLink(following.headers.get('link'))) fail('the last page still has a Link rel="next"');
      return undefined;
    },
  },
  {
    id: 'delete',
    name: 'DELETE /api/books/{id} gets 204, then the book is 404',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const book = bookAt(context, 0);
      const deleted = await call(context, 'DELETE', `/api/books/${book.id}`);
      expectStatus(deleted, 204, 'DELETE');
      context.books.forget(book.id);
      expectNoBody(deleted, 'DELETE');
      const read = await call(context, 'GET', `/api/books/${book.id}`);
      expectStatus(read, 404, 'GET after DELETE');
      expectNoBody(read, 'GET after DELETE');
      const again = await call(context, 'DELETE', `/api/books/${book.id}`);
      expectStatus(again, 404, 'DELETE again');
      return undefined;
    },
  },
  {
    id: 'unknown-route',
    name: 'an unknown route gets 404 with no body',
    needsGatewayResponses: GATEWAY,
    needs: ['basic'],
    run: async (context) => {
      const target = `/api/verify-deployment-${context.books.runId.toLowerCase()}`;
      const response = await call(context, 'GET', target);
      expectStatus(response, 404, `GET ${target}`);
      expectNoBody(response, `GET ${target}`);
      return undefined;
    },
  },
  {
    id: 'unsupported-media-type',
    name: 'a body that is not application/json gets 415 with the contract’s body',
    needsGatewayResponses: false,
    needs: ['basic'],
    run: async (context) => {
      const body = JSON.stringify(context.books.fields(4));
      const response = await refusedCreate(context, { 'content-type': 'text/plain' }, body);
      expectErrorBody(response, 415, { message: CONTRACT.mediaType }, 'POST as text/plain');
      return undefined;
    },
  },
  {
    id: 'validation',
    name: 'an invalid book and malformed JSON get 400 with the contract’s body',
    needsGatewayResponses: false,
    needs: ['basic'],
    run: async (context) => {
      const json = { 'content-type': 'application/json' };
      const invalid = JSON.stringify({ ...context.books.fields(5), title: '  ', publicationYear: 999 });
      expectErrorBody(
        await refusedCreate(context, json, invalid),
        400,
        { errors: { title: CONTRACT.titleRequired, publicationYear: CONTRACT.invalidYear } },
        'POST with a blank title and year 999',
      );
      expectErrorBody(
        await refusedCreate(context, json, '{"title": "unfinished'),
        400,
        { errors: { body: CONTRACT.invalidJson } },
        'POST with malformed JSON',
      );
      return undefined;
    },
  },
  {
    id: 'too-large',
    name: 'a body over 64 KiB gets 413 with the contract’s body',
    needsGatewayResponses: false,
    needs: ['basic'],
    run: async (context) => {
      const fields = context.books.fields(6);
      const padding = 'x'.repeat(CONTRACT.maxBodyBytes);
      const body = JSON.stringify({ ...fields, title: `${fields.title} ${padding}` });
      const response = await refusedCreate(context, { 'content-type': 'application/json' }, body);
      expectErrorBody(response, 413, { message: CONTRACT.tooLarge }, `POST of ${Buffer.byteLength(body)} bytes`);
      return undefined;
    },
  },
];
