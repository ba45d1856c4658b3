import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as answerUnrouted } from '../../functions/unrouted-methods/handler';
import { lambdaContext, proxyEventFor } from '../../local/gateway';
import { UNROUTED_METHODS } from '../../shared/api/routes';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/**
 * RFC 9110's methods around the contract's routes, through the local server: HEAD wherever GET is,
 * 405 with `Allow` for a known path's other methods, OPTIONS without credentials; and the caching
 * and content headers every answer carries (RFC 9111, Fetch's nosniff).
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request over a socket of its own: node:http shows HEAD's headers as sent, fetch does not for every method. */
const send = (method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer) =>
  new Promise<Raw>((done, fail) => {
    const req = request(`${api.baseUrl}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', fail);
    req.end(body);
  });

const AUTH = { authorization: BASIC_DEMO };
const JSON_BODY = { ...AUTH, 'content-type': 'application/json' };
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const createBook = async (isbn: string) => {
  const created = await send(
    'POST',
    '/api/books',
    JSON_BODY,
    JSON.stringify({ title: 'Kindred', author: 'Octavia E. Butler', isbn, publicationYear: 1979 }),
  );
  expect(created.status).toBe(201);
  return { id: (JSON.parse(created.body) as { id: number }).id, etag: created.headers.etag as string };
};

describe('HEAD', () => {
  it('answers a book with the GET status and headers, Content-Length included, and no body', async () => {
    const { id } = await createBook('head-1');
    const get = await send('GET', `/api/books/${id}`, AUTH);
    const head = await send('HEAD', `/api/books/${id}`, AUTH);
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    for (const name of ['content-type', 'content-length', 'etag', 'cache-control', 'x-content-type-options']) {
      expect(head.headers[name], name).toBe(get.headers[name]);
    }
  });

  it('answers the list, the OpenAPI document, the reference page and the pointers at / and /api', async () => {
    for (const path of ['/api/books', '/api/openapi.json', '/api/docs', '/api/docs/swagger-ui.css', '/', '/api']) {
      const head = await send('HEAD', path, AUTH);
      expect(head.status, path).toBe(200);
      expect(head.body, path).toBe('');
      expect(head.headers['content-type'], path).toBeDefined();
    }
  });

  it('needs the same credentials as GET, and is 304 and 404 where GET is', async () => {
    const { id, etag } = await createBook('head-2');
    const challenged = await send('HEAD', `/api/books/${id}`);
    expect(challenged.status).toBe(401);
    expect(challenged.headers['www-authenticate']).toContain('Basic realm="books"');
    expect((await send('HEAD', `/api/books/${id}`, { ...AUTH, 'if-none-match': etag })).status).toBe(304);
    expect((await send('HEAD', '/api/books/999999999', AUTH)).status).toBe(404);
  });
});

describe('a method a known path does not take', () => {
  it.each([
    ['DELETE', '/api/books', 'GET, HEAD, POST, OPTIONS'],
    ['PUT', '/api/books', 'GET, HEAD, POST, OPTIONS'],
    ['POST', '/api/books/1', 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS'],
    ['POST', '/api/openapi.json', 'GET, HEAD, OPTIONS'],
    ['DELETE', '/api/docs/swagger-ui.css', 'GET, HEAD, OPTIONS'],
    ['POST', '/', 'GET, HEAD, OPTIONS'],
    ['PUT', '/api', 'GET, HEAD, OPTIONS'],
    ['TRACE', '/api/books', 'GET, HEAD, POST, OPTIONS'],
  ])(
    '%s %s is 405 with Allow: %s and the contract’s error body, before any credentials',
    async (method, path, allow) => {
      const response = await send(method, path);
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe(allow);
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(JSON.parse(response.body)).toEqual({
        timestamp: expect.stringMatching(ISO_MS),
        status: 405,
        message: expect.stringContaining('Allow'),
      });
    },
  );

  it.each([
    ['application/json', JSON.stringify({ title: 'x' })],
    ['text/plain', 'plain words'],
    ['application/merge-patch+json', '{"title":"x"}'],
    ['application/x-www-form-urlencoded', 'a=1&b=2'],
    ['application/octet-stream', Buffer.from([0xff, 0xfe, 0x00, 0xc3])],
  ])(
    'is 405 whatever the body: %s (the body is never read, so its type and bytes cannot turn it into a 5xx)',
    async (contentType, body) => {
      const length = String(Buffer.byteLength(body));
      const response = await send(
        'DELETE',
        '/api/books',
        { 'content-type': contentType, 'content-length': length },
        body,
      );
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      expect(JSON.parse(response.body)).toMatchObject({ status: 405 });
    },
  );

  it('is 405 with wrong credentials too: no authorizer runs before it', async () => {
    const response = await send('PUT', '/api/books', { authorization: 'Basic bm9ib2R5Ondyb25n' });
    expect(response.status).toBe(405);
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  it('is what the UNROUTED_METHODS function answers to the same proxy event (the server emulates nothing)', async () => {
    for (const [method, path] of [
      ['OPTIONS', '/api/books/7'],
      ['PATCH', '/api/books'],
    ] as const) {
      const served = await send(method, path);
      const event = proxyEventFor({ method, target: path }) as unknown as Parameters<typeof answerUnrouted>[0];
      const answered = await answerUnrouted(event, lambdaContext(UNROUTED_METHODS.name, 'e2e'));
      expect(served.status).toBe(answered.statusCode);
      for (const [name, value] of Object.entries(answered.headers ?? {})) {
        expect(served.headers[name.toLowerCase()], name).toBe(String(value));
      }
      const withoutTime = (body: string) => body.replace(/"timestamp":"[^"]*"/, '');
      expect(withoutTime(served.body)).toBe(withoutTime(answered.body));
    }
  });

  it('stays 404 with no body on a path the API does not have', async () => {
    for (const [method, path] of [
      ['GET', '/api/nothing'],
      ['DELETE', '/api/books/1/x'],
      ['OPTIONS', '/api/nothing'],
      ['GET', '/books'],
    ] as const) {
      const response = await send(method, path, AUTH);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body).toBe('');
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('OPTIONS', () => {
  it.each([
    ['/api/books', 'GET, HEAD, POST, OPTIONS'],
    ['/api/books/42', 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS'],
    ['/api/openapi.json', 'GET, HEAD, OPTIONS'],
    ['/api/docs', 'GET, HEAD, OPTIONS'],
    ['/', 'GET, HEAD, OPTIONS'],
    ['/api', 'GET, HEAD, OPTIONS'],
  ])('%s is 204 with Allow: %s, without credentials', async (path, allow) => {
    const response = await send('OPTIONS', path);
    expect(response.status).toBe(204);
    expect(response.headers.allow).toBe(allow);
    expect(response.body).toBe('');
    expect(response.headers['www-authenticate']).toBeUndefined();
    // CORS is off unless origins are configured.
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('Cache-Control and nosniff', () => {
  it('let a browser keep one book only to revalidate it with If-None-Match (304 with the same headers)', async () => {
    const { id, etag } = await createBook('cache-1');
    const read = await send('GET', `/api/books/${id}`, AUTH);
    expect(read.headers['cache-control']).toBe('private, no-cache');
    expect(read.headers['x-content-type-options']).toBe('nosniff');
    const revalidated = await send('GET', `/api/books/${id}`, { ...AUTH, 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body).toBe('');
    expect(revalidated.headers.etag).toBe(etag);
    expect(revalidated.headers['cache-control']).toBe('private, no-cache');
  });

  it('keep lists, writes, 204s and every error out of every cache', async () => {
    const { id, etag } = await createBook('cache-2');
    const answers = [
      await send('GET', '/api/books', AUTH),
      await send('GET', '/api/books?limit=1', AUTH),
      await send('POST', '/api/books', JSON_BODY, JSON.stringify({ title: 'x' })),
      await send('PATCH', `/api/books/${id}`, JSON_BODY, JSON.stringify({ title: 'Fledgling' })),
      await send('PUT', `/api/books/${id}`, { ...JSON_BODY, 'if-match': etag }, JSON.stringify({})),
      await send('POST', '/api/books', { ...AUTH, 'content-type': 'text/plain' }, 'x'),
      await send('GET', '/api/books/1'),
      await send('GET', '/api/books/not-a-number', AUTH),
      await send('DELETE', `/api/books/${id}`, AUTH),
      await send('GET', '/api/nothing'),
      await send('PATCH', '/api/books'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 400, 200, 400, 415, 401, 400, 204, 404, 405]);
    for (const answer of answers) {
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});
