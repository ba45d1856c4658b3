import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../local/gateway';
import {
  BookNotFoundError,
  ConcurrentUpdateError,
  DuplicateIsbnError,
  ValidationError,
} from '../../shared/books/errors';
import type { HttpEvent, HttpResponse } from '../../shared/http/types';
import { ConcurrentUpdateError as StoreConcurrentUpdateError } from '../../shared/store/errors';
import { captureLogs } from '../support/log-capture';
import { contextFor, proxyEventFor, type RawRequest } from '../support/proxy-event';

/**
 * The HTTP envelope every route shares (shared/http), in process with stand-in use cases: how
 * errors become the contract's statuses and bodies, how a body is admitted, which URLs the
 * responses point at, and the deadline before Lambda's timeout.
 */
// INFO: the level the functions log at, where an event logged by mistake would show.
Object.assign(process.env, { POWERTOOLS_LOG_LEVEL: 'INFO' });
const { httpHandler, GIVE_UP_BEFORE_TIMEOUT_MS } = await import('../../shared/http/http-handler');
const { jsonBody, MAX_BODY_BYTES, MERGE_PATCH_MEDIA_TYPE } = await import('../../shared/http/json-body');
const { PayloadTooLargeError, ListTooLargeError, UnsupportedMediaTypeError } = await import('../../shared/http/errors');
const { nextPageLink } = await import('../../shared/http/pagination');
const { requestUrl } = await import('../../shared/http/request-url');
const responses = await import('../../shared/http/responses');
const { logger } = await import('../../shared/observability/logger');

const logs = captureLogs();
beforeEach(() => logs.clear());
afterAll(() => logs.restore());

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const eventFor = (request: Partial<RawRequest> = {}) =>
  proxyEventFor({ method: 'POST', target: '/api/books', ...request }) as APIGatewayProxyEvent;

/** A handler as Lambda calls it: with the event API Gateway sends. */
type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<HttpResponse>;
const route = (...args: Parameters<typeof httpHandler>) => httpHandler(...args) as unknown as LambdaHandler;

/** A route whose use case throws `error`. */
const failingWith = (error: unknown) =>
  route(async () => {
    throw error;
  });

/**
 * A handler's answer without the two fields every answer carries (checked here once, and per status
 * in test/e2e/http-methods.test.ts), so each case states only what is its own.
 */
const run = async (handler: LambdaHandler, event = eventFor()) => {
  const response = await handler(event, contextFor(event));
  const { 'Cache-Control': cacheControl, 'X-Content-Type-Options': nosniff, ...own } = response.headers ?? {};
  expect(cacheControl).toBe('no-store');
  expect(nosniff).toBe('nosniff');
  return { ...response, headers: own };
};

describe('errors become the contract answers', () => {
  it('a validation error: 400 with timestamp, status and the field messages', async () => {
    const response = await run(failingWith(new ValidationError({ title: 'Title is required' })));
    expect(response.statusCode).toBe(400);
    expect(response.headers).toStrictEqual({ 'Content-Type': 'application/json' });
    expect(JSON.parse(response.body)).toStrictEqual({
      timestamp: expect.stringMatching(ISO_MS),
      status: 400,
      errors: { title: 'Title is required' },
    });
  });

  it.each([
    ['a missing book', new BookNotFoundError(7), 404],
    ['a taken ISBN', new DuplicateIsbnError('x'), 409],
  ])('%s: %i with no body and no Content-Type', async (_, error, status) => {
    expect(await run(failingWith(error))).toStrictEqual({ statusCode: status, headers: {}, body: '' });
  });

  it('contention that outlasted the retries: 503 with Retry-After and the message, never the 500', async () => {
    // The store throws it under this name; the HTTP layer knows it from the domain's errors.
    expect(StoreConcurrentUpdateError).toBe(ConcurrentUpdateError);
    const response = await run(failingWith(new ConcurrentUpdateError('Book 1 kept conflicting during 10 attempts')));
    expect(response.statusCode).toBe(503);
    expect(response.headers).toStrictEqual({ 'Content-Type': 'application/json', 'Retry-After': '1' });
    expect(JSON.parse(response.body)).toStrictEqual({
      timestamp: expect.stringMatching(ISO_MS),
      status: 503,
      message: 'The book is being changed by other requests at this moment; nothing was written, try again',
    });
    expect(response.body).not.toContain('Book 1'); // the store's wording stays in the log
    expect(logs.errors()).toHaveLength(0);
  });

  it.each([
    [new PayloadTooLargeError(65_536), 413, 'Request body must be at most 65536 bytes'],
    [new UnsupportedMediaTypeError(), 415, 'Content-Type must be application/json, in UTF-8'],
    [new ListTooLargeError(), 422, new ListTooLargeError().message],
  ])('%s: its status with timestamp, status and message', async (error, status, message) => {
    const response = await run(failingWith(error));
    expect(response.statusCode).toBe(status);
    expect(response.headers).toStrictEqual({ 'Content-Type': 'application/json' });
    expect(JSON.parse(response.body)).toStrictEqual({ timestamp: expect.stringMatching(ISO_MS), status, message });
  });

  it('anything else: the generic 500, its details in one ERROR log line with the request id, none in the body', async () => {
    const event = eventFor();
    const context = contextFor(event);
    const response = await failingWith(new Error('secret table name'))(event, context);
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toStrictEqual({
      timestamp: expect.stringMatching(ISO_MS),
      status: 500,
      message: 'An unexpected error occurred',
    });
    expect(response.body).not.toContain('secret');
    const errors = logs.errors();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      message: 'Unhandled error',
      awsRequestId: context.awsRequestId,
      error: expect.objectContaining({ message: 'secret table name' }),
    });
  });

  it('errors carry their own names, for the logs', () => {
    expect(new PayloadTooLargeError(1).name).toBe('PayloadTooLargeError');
    expect(new UnsupportedMediaTypeError().name).toBe('UnsupportedMediaTypeError');
    expect(new ListTooLargeError().name).toBe('ListTooLargeError');
  });
});

describe('success responses', () => {
  it('JSON bodies say so; a created book points at its URL', () => {
    expect(responses.ok({ a: 1 })).toStrictEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":1}',
    });
    expect(responses.okJsonText('[]')).toStrictEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: '[]',
    });
    expect(responses.created({ id: 1 }, 'https://h/api/books/1')).toStrictEqual({
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', Location: 'https://h/api/books/1' },
      body: '{"id":1}',
    });
    expect(responses.json(200, [], { Link: '<x>; rel="next"' }).headers).toStrictEqual({
      'Content-Type': 'application/json',
      Link: '<x>; rel="next"',
    });
    expect(responses.noContent()).toStrictEqual({ statusCode: 204, headers: {}, body: '' });
  });
});

describe('request bodies (size, then media type, then JSON syntax)', () => {
  let seen: unknown;
  const echo = route(
    async (event: HttpEvent) => {
      seen = event.body;
      return responses.ok({ received: event.body ?? null });
    },
    { use: [jsonBody()] },
  );
  const post = (body: string | undefined, contentType: string | undefined = 'application/json') =>
    run(echo, eventFor({ headers: contentType === undefined ? {} : { 'Content-Type': contentType }, body }));

  beforeEach(() => {
    seen = 'not called';
  });

  it('parses a JSON body, with or without a charset', async () => {
    expect((await post('{"a":1}')).statusCode).toBe(200);
    expect(seen).toStrictEqual({ a: 1 });
    expect((await post('{"a":2}', 'application/json; charset=utf-8')).statusCode).toBe(200);
    expect(seen).toStrictEqual({ a: 2 });
  });

  it('lets a request without a body through to validation, whatever its content type', async () => {
    expect((await post(undefined, undefined)).statusCode).toBe(200);
    expect(seen).toBeUndefined();
    expect((await post('', 'text/plain')).statusCode).toBe(200);
    expect(seen).toBeUndefined();
  });

  it('takes 64 KiB and refuses one byte more with 413, counted in UTF-8 bytes', async () => {
    const padded = (bytes: number) => `"${'x'.repeat(bytes - 2)}"`;
    expect((await post(padded(MAX_BODY_BYTES))).statusCode).toBe(200);
    expect(seen).toBe('x'.repeat(MAX_BODY_BYTES - 2));
    const tooLarge = await post(padded(MAX_BODY_BYTES + 1), 'text/plain'); // size is checked before the media type
    expect(tooLarge.statusCode).toBe(413);
    expect(JSON.parse(tooLarge.body).message).toBe('Request body must be at most 65536 bytes');
    const multibyte = `"${'é'.repeat(MAX_BODY_BYTES / 2)}"`; // fewer characters than bytes
    expect((await post(multibyte)).statusCode).toBe(413);
  });

  it('counts a base64-encoded body by the bytes it carries', async () => {
    const body = Buffer.from(`"${'x'.repeat(MAX_BODY_BYTES - 2)}"`).toString('base64');
    const event = { ...eventFor({ headers: { 'Content-Type': 'application/json' } }), body, isBase64Encoded: true };
    expect((await run(echo, event)).statusCode).not.toBe(413); // its base64 text is a third longer than the limit
  });

  it('refuses another media type with 415', async () => {
    for (const type of [
      'text/plain',
      'application/jsonx',
      'application/ld+json',
      'application/json; foo',
      'json',
      '',
    ]) {
      const response = await post('{"a":1}', type);
      expect(response.statusCode, type).toBe(415);
      expect(JSON.parse(response.body).message).toBe('Content-Type must be application/json, in UTF-8');
    }
    expect(seen).toBe('not called');
  });

  it('compares media types and the charset case-insensitively (RFC 9110 §8.3.1)', async () => {
    for (const type of ['APPLICATION/JSON', 'Application/Json; Charset=UTF-8', 'application/json;charset="utf-8"']) {
      seen = 'not called';
      expect((await post('{"a":3}', type)).statusCode, type).toBe(200);
      expect(seen).toStrictEqual({ a: 3 });
    }
  });

  it('refuses a charset other than UTF-8 with 415, before reading the bytes in it', async () => {
    for (const charset of ['iso-8859-1', 'utf-16', 'us-ascii', 'utf8', '']) {
      const response = await post('{"a":1}', `application/json; charset=${charset === '' ? '""' : charset}`);
      expect(response.statusCode, charset).toBe(415);
    }
    expect(seen).toBe('not called');
  });

  it('takes application/merge-patch+json only where the route says so (PATCH)', async () => {
    expect((await post('{"a":4}', MERGE_PATCH_MEDIA_TYPE)).statusCode).toBe(415);
    const patch = route(
      async (event: HttpEvent) => {
        seen = event.body;
        return responses.ok({});
      },
      { use: [jsonBody({ alsoAccept: [MERGE_PATCH_MEDIA_TYPE] })] },
    );
    const headers = { 'Content-Type': 'application/merge-patch+json; charset=UTF-8' };
    expect((await run(patch, eventFor({ headers, body: '{"a":5}' }))).statusCode).toBe(200);
    expect(seen).toStrictEqual({ a: 5 });
    const json = { 'Content-Type': 'application/json' };
    expect((await run(patch, eventFor({ headers: json, body: '{"a":6}' }))).statusCode).toBe(200);
  });

  it('refuses bytes that are not UTF-8 with 400 and errors.body, never storing U+FFFD in their place', async () => {
    for (const bytes of [
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]), // {"a":"é"} in Latin-1
      Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), // a surrogate encoded as UTF-8 (CESU-8)
      Buffer.from([0x22, 0xc0, 0xaf, 0x22]), // an overlong "/"
      Buffer.from([0x22, 0xe2, 0x82, 0x22]), // a truncated sequence
    ]) {
      const event = {
        ...eventFor({ headers: { 'Content-Type': 'application/json' } }),
        body: bytes.toString('base64'),
        isBase64Encoded: true,
      };
      const response = await run(echo, event);
      expect(response.statusCode, bytes.toString('hex')).toBe(400);
      expect(JSON.parse(response.body).errors).toStrictEqual({ body: 'Request body must be valid UTF-8' });
    }
    expect(seen).toBe('not called');
  });

  it('counts invalid bytes as bytes: 30,000 of them are far below the limit and get 400, not 413', async () => {
    const bytes = Buffer.concat([Buffer.from('"'), Buffer.alloc(30_000, 0xff), Buffer.from('"')]);
    const event = {
      ...eventFor({ headers: { 'Content-Type': 'application/json' } }),
      body: bytes.toString('base64'),
      isBase64Encoded: true,
    };
    expect((await run(echo, event)).statusCode).toBe(400);
  });

  it('takes UTF-8 that a base64 body carries, and keeps a byte order mark as the JSON error it is', async () => {
    const event = (text: string) => ({
      ...eventFor({ headers: { 'Content-Type': 'application/json' } }),
      body: Buffer.from(text, 'utf8').toString('base64'),
      isBase64Encoded: true,
    });
    expect((await run(echo, event('{"a":"café 😀"}'))).statusCode).toBe(200);
    expect(seen).toStrictEqual({ a: 'café 😀' });
    expect((await run(echo, event('\ufeff{"a":1}'))).statusCode).toBe(400);
  });

  it('refuses malformed JSON with 400 and errors.body', async () => {
    const response = await post('{"a":');
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).errors).toStrictEqual({ body: 'Request body must be valid JSON' });
  });

  it('treats an event without a body, or with an empty one, as no body (console test events have either)', async () => {
    for (const body of [undefined, '']) {
      const event = { ...eventFor({ headers: { 'Content-Type': 'text/plain' } }), body } as APIGatewayProxyEvent;
      expect((await run(echo, event)).statusCode, JSON.stringify(body)).toBe(200);
      expect(seen).toBeUndefined();
    }
  });

  it('lets an error that is not the parser’s through to the generic 500', async () => {
    const broken = route(async () => responses.ok({}), {
      use: [
        {
          // The parser is the first to read the headers after this: it fails, but not as a parser error.
          before: async (request) => {
            Object.defineProperty(request.event, 'headers', {
              get: () => {
                throw new Error('not a parser error');
              },
            });
          },
        },
        jsonBody(),
      ],
    });
    expect(
      (await run(broken, eventFor({ headers: { 'Content-Type': 'application/json' }, body: '{}' }))).statusCode,
    ).toBe(500);
  });
});

describe('URLs in responses', () => {
  const event = (overrides: Partial<HttpEvent> & { headers?: Record<string, string> }, path = '/api/books') =>
    ({
      path,
      headers: {},
      queryStringParameters: {},
      ...overrides,
      requestContext: { domainName: 'abc.execute-api.eu-west-1.amazonaws.com', path: `/prod${path}` },
    }) as unknown as HttpEvent;

  it('the request URL: forwarded protocol (https when absent), the gateway’s own host, the stage path, no trailing slash', () => {
    expect(requestUrl(event({ headers: { host: 'books.example', 'x-forwarded-proto': 'http' } }))).toBe(
      'http://abc.execute-api.eu-west-1.amazonaws.com/prod/api/books',
    );
    expect(requestUrl(event({}))).toBe('https://abc.execute-api.eu-west-1.amazonaws.com/prod/api/books');
    expect(requestUrl(event({}, '/api/books//'))).toBe(
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod/api/books',
    );
    const withoutContextPath = { ...event({}), requestContext: { domainName: 'h', path: '' } } as unknown as HttpEvent;
    expect(requestUrl(withoutContextPath)).toBe('https://h/api/books');
  });

  it('the next page: the same URL and query, the cursor replaced', () => {
    const link = nextPageLink(
      event({
        headers: { host: 'h' },
        queryStringParameters: { author: 'Émile Zola', limit: '2', cursor: 'old', year: undefined },
      }),
      42,
    );
    expect(link).toBe(
      '<https://abc.execute-api.eu-west-1.amazonaws.com/prod/api/books?author=%C3%89mile+Zola&limit=2&cursor=42>; rel="next"',
    );
  });
});

describe('the origin of every link: the gateway’s own host, never the client’s Host', () => {
  const at = (domainName: string, headers: Record<string, string> = {}) =>
    ({
      path: '/api/books',
      headers,
      queryStringParameters: {},
      requestContext: { domainName, path: '/api/books' },
    }) as unknown as HttpEvent;

  it('ignores Host whatever it holds: another site, text outside Latin-1, a URL', () => {
    for (const host of ['evil.example', '\u20ac', 'a/b?c', 'x\r\nSet-Cookie: a=b']) {
      expect(requestUrl(at('api.example', { host }))).toBe('https://api.example/api/books');
    }
  });

  it('adds the forwarded port unless it is the protocol’s default (the local server’s own port)', () => {
    expect(requestUrl(at('127.0.0.1', { 'x-forwarded-proto': 'http', 'x-forwarded-port': '3000' }))).toBe(
      'http://127.0.0.1:3000/api/books',
    );
    expect(requestUrl(at('api.example', { 'x-forwarded-port': '443' }))).toBe('https://api.example/api/books');
    expect(requestUrl(at('api.example', { 'x-forwarded-proto': 'http', 'x-forwarded-port': '80' }))).toBe(
      'http://api.example/api/books',
    );
    expect(requestUrl(at('[::1]', { 'x-forwarded-port': '8443' }))).toBe('https://[::1]:8443/api/books');
    for (const port of ['', '99999', '3000x', '-1', '１２']) {
      expect(requestUrl(at('api.example', { 'x-forwarded-port': port })), port).toBe('https://api.example/api/books');
    }
    expect(requestUrl(at('api.example', { 'x-forwarded-proto': 'gopher' }))).toBe('https://api.example/api/books');
  });

  it('takes the port of a domainName that carries one (`sam local start-api` sets it to the request’s Host), the forwarded port first', () => {
    expect(requestUrl(at('127.0.0.1:3001', { 'x-forwarded-proto': 'http' }))).toBe('http://127.0.0.1:3001/api/books');
    expect(requestUrl(at('127.0.0.1:3001', { 'x-forwarded-proto': 'http', 'x-forwarded-port': '3001' }))).toBe(
      'http://127.0.0.1:3001/api/books',
    );
    expect(requestUrl(at('localhost:8080', { 'x-forwarded-port': '443' }))).toBe('https://localhost/api/books');
    expect(requestUrl(at('[::1]:3001', { 'x-forwarded-proto': 'http' }))).toBe('http://[::1]:3001/api/books');
  });

  it('falls back to a relative URL (a path, which Location and Link allow) when the host is not one a URL can carry', () => {
    for (const domainName of [
      '',
      'a b',
      'évil.example',
      'a/b',
      'user@host',
      'h:x',
      'h:99999',
      '::1',
      '.x',
      'x'.repeat(256),
    ]) {
      expect(requestUrl(at(domainName)), domainName).toBe('/api/books');
    }
  });
});

describe('Authentication-Info from the authorizer', () => {
  const INFO = 'nextnonce="n2", qop=auth, rspauth="abc", cc=00000001, cnonce="c"';
  const authorized = (authenticationInfo: unknown) => {
    const event = eventFor();
    const authorizer = { ...event.requestContext.authorizer, authenticationInfo };
    return { ...event, requestContext: { ...event.requestContext, authorizer } };
  };

  it('reaches the Digest client on every answer, since its nonce is spent whatever the answer', async () => {
    const ok = await run(
      route(async () => responses.ok({})),
      authorized(INFO),
    );
    expect(ok.headers).toStrictEqual({ 'Content-Type': 'application/json', 'Authentication-Info': INFO });
    const notFound = await run(failingWith(new BookNotFoundError(1)), authorized(INFO));
    expect(notFound.headers).toStrictEqual({ 'Authentication-Info': INFO });
    const failed = await run(failingWith(new Error('boom')), authorized(INFO));
    expect(failed.statusCode).toBe(500);
    expect(failed.headers?.['Authentication-Info']).toBe(INFO);
  });

  it('is added only when the authorizer passed one (Basic and public reads have none)', async () => {
    for (const event of [eventFor(), authorized(undefined), authorized(42)]) {
      expect(
        (
          await run(
            route(async () => responses.ok({})),
            event,
          )
        ).headers,
      ).toStrictEqual({
        'Content-Type': 'application/json',
      });
    }
  });
});

describe('logging around every request', () => {
  it('never logs the event: its Authorization header and body stay out of the logs', async () => {
    const handler = route(async () => responses.ok({}));
    const event = eventFor({ headers: { Authorization: 'Basic c2VjcmV0OnNlY3JldA==' }, body: 'secret body' });
    expect((await run(handler, event)).statusCode).toBe(200);
    expect(logs.lines).toContainEqual(expect.objectContaining({ message: 'Request', status: 200 })); // the access line
    expect(JSON.stringify(logs.lines)).not.toMatch(/c2VjcmV0|secret body/);
  });

  it('keys a use case adds to the log lines end with its request', async () => {
    const handler = route(async (event: HttpEvent) => {
      if (event.headers['x-tag'] === 'yes') logger.appendKeys({ tagged: true });
      logger.error('from the use case');
      return responses.ok({});
    });
    await run(handler, eventFor({ headers: { 'X-Tag': 'yes' } }));
    await run(handler, eventFor());
    expect(logs.errors().map((line) => line.tagged)).toStrictEqual([true, undefined]);
  });
});

describe('the deadline before Lambda’s timeout', () => {
  it('a use case that would outlast the function ends in the generic 500, the give-up margin before the timeout', async () => {
    const stuck = route(() => new Promise<HttpResponse>(() => undefined));
    const event = eventFor();
    const context = lambdaContext('unit', event.requestContext.requestId, GIVE_UP_BEFORE_TIMEOUT_MS + 100);
    const response = await stuck(event, context);
    expect(response.statusCode).toBe(500);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(GIVE_UP_BEFORE_TIMEOUT_MS / 2);
    expect(logs.errors()).toHaveLength(1);
  });
});
