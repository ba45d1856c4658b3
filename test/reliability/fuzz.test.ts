import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessDenied, isAllowed, toAuthorizerEvent } from '../../local/authorizer-gateway';
import { bufferedHandler } from '../../local/streaming-response';
import { checkBooksTable } from '../../ops/invariants';
import { ROUTES } from '../../shared/api/routes';
import { entityTag } from '../../shared/http/preconditions';
import { ALLOWED_STATUSES, expectAllowedResponse } from '../support/contract';
import { fuzzSeed, queryText, requestTarget } from '../support/fuzz';
import { startLocalApi } from '../support/local-api';
import { contextFor, proxyEventFor } from '../support/proxy-event';

/**
 * Property-based fuzzing of every route's handler and of the authorizer with the events API Gateway
 * would build: whatever the body, query, path id or Authorization header, the answer is one the
 * contract allows (never a 5xx) and nothing is left unhandled.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000);
const SEED = fuzzSeed();
console.log(`fuzz seed ${SEED}: replay with FUZZ_SEED=${SEED} npx vitest run test/reliability/fuzz.test.ts`);
const params = { numRuns: RUNS, seed: SEED, endOnFailure: true } as const;

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
let api: Awaited<ReturnType<typeof startLocalApi>>;
const handlers = new Map<string, Handler>();
let authorize: (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  api = await startLocalApi(); // tables, environment and the demo user the handlers use
  const modules = {
    ListBooks: import('../../functions/books/list'),
    GetBook: import('../../functions/books/get'),
    CreateBook: import('../../functions/books/create'),
    ReplaceBook: import('../../functions/books/replace'),
    PatchBook: import('../../functions/books/patch'),
    DeleteBook: import('../../functions/books/delete'),
    GetOpenApi: import('../../functions/openapi/handler'),
    GetAsyncApi: import('../../functions/asyncapi/handler'),
    GetApiReference: import('../../functions/api-reference/handler'),
    GetApiReferenceAsset: import('../../functions/api-reference/handler'),
    GetApiIndex: import('../../functions/api-index/handler'),
    GetRootIndex: import('../../functions/api-index/handler'),
  };
  for (const [name, module] of Object.entries(modules)) handlers.set(name, bufferedHandler((await module).handler));
  ({ handler: authorize } = await import('../../functions/authorizer/handler'));
  process.on('unhandledRejection', onUnhandled);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
  expect((await checkBooksTable(api.tables.documentClient, api.tables.names.books)).violations).toEqual([]);
  await api.close();
});

// --- arbitraries -------------------------------------------------------------------------------

/** Values that are awkward for a JSON field: wrong types, blanks, huge and tiny numbers, long text. */
const fieldValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\t\n', '\u0000', 'x'.repeat(501), '978-0-13-468599-1'),
  fc.integer(),
  fc.integer({ min: 1000, max: 3000 }),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -0, 1e308, 5e-324),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);

const bookLike = fc.record(
  {
    title: fieldValue,
    author: fieldValue,
    isbn: fc.oneof(
      fieldValue,
      fc.uuid().map((u) => u.replace(/-/g, '')),
    ),
    publicationYear: fieldValue,
    id: fieldValue,
    createdAt: fieldValue,
  },
  { requiredKeys: [] },
);

/** A valid book now and then, so the success paths (and DynamoDB) are fuzzed too. */
const validBook = fc.record({
  title: fc.string({ minLength: 1, maxLength: 50 }).filter((s) => s.trim() !== ''),
  author: fc.string({ minLength: 1, maxLength: 50 }).filter((s) => s.trim() !== ''),
  isbn: fc.oneof(
    fc.uuid().map((u) => u.replace(/-/g, '')),
    fc.constantFrom('fuzz-1', 'FUZZ 1', 'fuzz-2', 'fuzz2'), // collisions, for the 409 paths
  ),
  publicationYear: fc.integer({ min: 1000, max: 2100 }),
});

const deeplyNested = fc.integer({ min: 1, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`);
const hugeNumbers = fc.constantFrom(
  '{"title":"T","author":"A","isbn":"I","publicationYear":1e400}',
  '{"title":"T","author":"A","isbn":"I","publicationYear":18446744073709551616}',
  '{"title":"T","author":"A","isbn":"I","publicationYear":-1e400}',
  '{"publicationYear":2000.0000000000000001}',
  `{"publicationYear":${'9'.repeat(5_000)}}`,
);

const body = fc.oneof(
  { weight: 4, arbitrary: bookLike.map((b) => JSON.stringify(b)) },
  { weight: 4, arbitrary: validBook.map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: fc.json() },
  { weight: 2, arbitrary: fc.string() },
  { weight: 1, arbitrary: deeplyNested },
  { weight: 1, arbitrary: hugeNumbers },
  { weight: 1, arbitrary: fc.constant(`{"title":"${'x'.repeat(70_000)}"}`) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  // Bytes that are not UTF-8 (the gateway hands them over in base64), and text UTF-8 cannot carry.
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 40 }).map((bytes) => Buffer.from(bytes)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('title', 'author', 'isbn'), fc.constantFrom('\\ud800', 'a\\udc00', '\\udfff\\ud83d'))
      .map(([field, lone]) => `{"title":"T","author":"A","isbn":"lone","publicationYear":2000,"${field}":"${lone}"}`),
  },
);

const contentType = fc.oneof(
  { weight: 10, arbitrary: fc.constant('application/json') },
  fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/xml', 'APPLICATION/JSON', ''),
  fc.constantFrom(
    'Application/Json; Charset="UTF-8"',
    'application/json; charset=iso-8859-1',
    'application/json; charset=utf-16',
    'application/merge-patch+json',
    'application/ld+json',
  ),
  fc.string({ maxLength: 30 }),
  fc.constant(undefined),
);

/** Entity-tag lists: this book's tags of early versions (current or stale), *, weak, listed, malformed. */
const tagHeader = (id: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 4 }).map((v) => entityTag(Number(id) || 1, v)) },
    fc.constant('*'),
    fc.integer({ min: 1, max: 4 }).map((v) => `W/${entityTag(Number(id) || 1, v)}`),
    fc
      .array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 })
      .map((vs) => vs.map((v) => entityTag(Number(id) || 1, v)).join(', ')),
    fc.constantFrom('"stale"', '"a", W/"b"', 'abc', '"', '*, "a"', ',', '"a",,"b"', `${'"x",'.repeat(101)}"x"`),
    fc.string({ maxLength: 30 }),
  );

/** Idempotency keys: none mostly, a few reused ones (replays and 422s), and malformed ones. */
const idempotencyKey = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 3, arbitrary: fc.constantFrom('"fuzz-key-1"', 'fuzz-key-1', '"fuzz-key-2"', '"fuzz key 3"') },
  fc.constantFrom('""', '"', 'with space', `"${'k'.repeat(256)}"`, '"é"', '"a\\"b"'),
  fc.string({ maxLength: 30 }),
);

/** Now and then a deployment that requires If-Match (428 without it). */
const requireIfMatch = fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, fc.constant(true));
const withRequirement = async <T>(required: boolean, run: () => Promise<T>) => {
  if (required) process.env.REQUIRE_IF_MATCH = 'true';
  try {
    return await run();
  } finally {
    delete process.env.REQUIRE_IF_MATCH;
  }
};
const header = (name: string, value: string | undefined) => (value === undefined ? {} : { [name]: value });

/** Path ids: good ones, and everything a path segment can carry that is not one. */
const pathId = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 100 }).map(String) },
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom('0', '-1', '01', '1e3', '1.0', ' 1', '9007199254740991', '9007199254740992', '٣', 'null', '.', '..'),
  fc.string({ minLength: 1 }),
);

// --- properties --------------------------------------------------------------------------------

const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;
const routeOf = (event: APIGatewayProxyEvent) =>
  ROUTES.find((route) => route.method === event.httpMethod && route.path === event.resource)?.name;

const invoke = async (routeName: string, request: Parameters<typeof proxyEventFor>[0]) => {
  const event = proxyEventFor(request);
  if (!event) return; // a path the gateway itself answers with 404 (e.g. an id containing "/")
  // A dot segment ("/api/docs/.") is resolved before routing, as curl and browsers do: the request
  // is then another route's, held to that route's statuses, or a method its path has no route for
  // (PUT /api/books/. is PUT /api/books/), which the unrouted-methods function answers in its own tests.
  const routed = routeOf(event);
  if (!DOT_SEGMENT.test(request.target)) expect(routed).toBe(routeName);
  if (!routed) return;
  const result = await (handlers.get(routed) as Handler)(event, contextFor(event));
  expectAllowedResponse(routed, result);
  const seen = statuses.get(routed) ?? new Map<number, number>();
  seen.set(result.statusCode, (seen.get(result.statusCode) ?? 0) + 1);
  statuses.set(routed, seen);
};

/** Statuses seen per route: the generators must reach every status the contract allows, successes included. */
const statuses = new Map<string, Map<number, number>>();

const withBody = (headers: Record<string, string>, type: string | undefined) =>
  type === undefined ? headers : { ...headers, 'Content-Type': type };

describe(`fuzzing every route with ${RUNS} generated requests each (FUZZ_SEED=${SEED})`, () => {
  // Each list fans out to every shard (32 queries), so a thousand of them need more than the
  // default 30 s when the machine is busy; the property is about answers, not speed.
  it('GET /api/books with any query string', { timeout: 180_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(queryText, async (query) => {
        await invoke('ListBooks', { method: 'GET', target: requestTarget('/api/books', query) });
      }),
      params,
    );
  });

  it('POST /api/books with any body and content type', async () => {
    await fc.assert(
      fc.asyncProperty(body, contentType, idempotencyKey, async (payload, type, key) => {
        await invoke('CreateBook', {
          method: 'POST',
          target: '/api/books',
          headers: withBody(header('Idempotency-Key', key), type),
          body: payload,
        });
      }),
      params,
    );
  });

  for (const [route, method] of [
    ['ReplaceBook', 'PUT'],
    ['PatchBook', 'PATCH'],
  ] as const) {
    it(`${method} /api/books/{id} with any path id, body, content type and If-Match`, async () => {
      await fc.assert(
        fc.asyncProperty(
          pathId.chain((id) => fc.tuple(fc.constant(id), tagHeader(id))),
          body,
          contentType,
          requireIfMatch,
          async ([id, ifMatch], payload, type, required) => {
            await withRequirement(required, () =>
              invoke(route, {
                method,
                target: `/api/books/${encodeURIComponent(id)}`,
                headers: withBody(header('If-Match', ifMatch), type),
                body: payload,
              }),
            );
          },
        ),
        params,
      );
    });
  }

  for (const [route, method, name] of [
    ['GetBook', 'GET', 'If-None-Match'],
    // Last, so the other routes find books to work on.
    ['DeleteBook', 'DELETE', 'If-Match'],
  ] as const) {
    it(`${method} /api/books/{id} with any path id and ${name}`, async () => {
      await fc.assert(
        fc.asyncProperty(
          pathId.chain((id) => fc.tuple(fc.constant(id), tagHeader(id))),
          requireIfMatch,
          async ([id, tags], required) => {
            await withRequirement(required, () =>
              invoke(route, { method, target: `/api/books/${encodeURIComponent(id)}`, headers: header(name, tags) }),
            );
          },
        ),
        params,
      );
    });
  }

  it.each([
    ['GetOpenApi', '/api/openapi.json'],
    ['GetAsyncApi', '/api/asyncapi.json'],
  ] as const)('%s: GET %s with any query string and Host header', async (route, path) => {
    const host = fc.oneof(fc.constant('127.0.0.1:3000'), fc.domain(), fc.string({ maxLength: 40 }));
    await fc.assert(
      fc.asyncProperty(queryText, host, async (query, hostHeader) => {
        await invoke(route, { method: 'GET', target: requestTarget(path, query), headers: { host: hostHeader } });
      }),
      params,
    );
  });

  it('GET /api/docs with any query string, and GET /api/docs/{asset} with any asset name', async () => {
    const asset = fc.oneof(
      fc.constantFrom('swagger-ui-bundle.js', 'swagger-ui.css', 'index.html', '..%2Fpackage.json', '.', '..'),
      pathId,
    );
    await fc.assert(
      fc.asyncProperty(queryText, asset, async (query, name) => {
        await invoke('GetApiReference', { method: 'GET', target: requestTarget('/api/docs', query) });
        await invoke('GetApiReferenceAsset', { method: 'GET', target: `/api/docs/${encodeURIComponent(name)}` });
      }),
      params,
    );
  });

  it('GET / and /api with any query string and Host header', async () => {
    const host = fc.oneof(fc.constant('127.0.0.1:3000'), fc.domain(), fc.string({ maxLength: 40 }));
    await fc.assert(
      fc.asyncProperty(queryText, host, async (query, hostHeader) => {
        await invoke('GetRootIndex', {
          method: 'GET',
          target: requestTarget('/', query),
          headers: { host: hostHeader },
        });
        await invoke('GetApiIndex', {
          method: 'GET',
          target: requestTarget('/api', query),
          headers: { host: hostHeader },
        });
      }),
      params,
    );
  });

  it('the authorizer with any Authorization header: a Deny with a challenge (401), never a throw', async () => {
    const token68 = fc.string({ unit: fc.constantFrom(...'ABCabc012+/=-._~:'.split('')), maxLength: 60 });
    const digestParams = fc
      .dictionary(
        fc.oneof(
          fc.constantFrom('username', 'realm', 'nonce', 'uri', 'response', 'qop', 'nc', 'cnonce', 'algorithm'),
          fc.string({ maxLength: 8 }),
        ),
        fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('auth', 'MD5', 'SHA-256', '/api/books', 'demo')),
        { maxKeys: 9 },
      )
      .chain((entries) =>
        fc
          .array(fc.boolean(), { minLength: Object.keys(entries).length, maxLength: Object.keys(entries).length })
          .map((quoted) =>
            Object.entries(entries)
              .map(([k, v], i) => (quoted[i] ? `${k}="${v}"` : `${k}=${v}`))
              .join(', '),
          ),
      );
    const authorization = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      token68.map((t) => `Basic ${t}`),
      fc.tuple(fc.string(), fc.string()).map(([u, p]) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`),
      digestParams.map((p) => `Digest ${p}`),
      fc.constantFrom('Basic', 'Digest', 'Bearer x', 'Digest ,,,', `Digest username="${'x'.repeat(5_000)}"`),
      fc.constant(undefined),
    );
    await fc.assert(
      fc.asyncProperty(authorization, fc.constantFrom('GET', 'POST'), async (header, method) => {
        const event = proxyEventFor({
          method,
          target: '/api/books',
          headers: header === undefined ? {} : { Authorization: header },
        }) as APIGatewayProxyEvent;
        const authorizerEvent = toAuthorizerEvent(event);
        const result = await authorize(authorizerEvent);
        const allowed = isAllowed(result, authorizerEvent.methodArn);
        // Only the demo user's real credentials may pass; no generated value can hold them.
        expect(allowed).toBe(false);
        const denied = accessDenied(result, 'books');
        expect(denied.statusCode).toBe(401);
        expect(denied.headers?.['WWW-Authenticate']).toMatch(/^Digest realm="books", qop="auth", /);
      }),
      params,
    );
  });

  it('reached the success and the error paths of every route', () => {
    const summary = Object.fromEntries([...statuses].map(([route, seen]) => [route, Object.fromEntries(seen)]));
    console.log('fuzz statuses per route:', JSON.stringify(summary));
    for (const [route, expected] of Object.entries(ALLOWED_STATUSES)) {
      expect([...(statuses.get(route)?.keys() ?? [])], route).toEqual(expect.arrayContaining([...expected]));
    }
  });

  it('covers every route in the table', () => {
    expect(Object.keys(ALLOWED_STATUSES).sort()).toEqual(ROUTES.map((r) => r.name).sort());
    expect([...handlers.keys()].sort()).toEqual(ROUTES.map((r) => r.name).sort());
  });
});
