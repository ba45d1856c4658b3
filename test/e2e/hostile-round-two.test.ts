import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBooksTable } from '../../ops/invariants';
import { apiClient } from '../support/api-client';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';
import { closedByServer, openSocket, rawHttp, rawRequest } from '../support/raw-http';

/**
 * The second hostile round's findings on framing and input, each as the request that found it,
 * through the local server (the same handlers and authorizer as Lambda). The conditional-request
 * findings live in conditional-writes.test.ts, the authentication ones beside the authorizer's tests.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
let client: ReturnType<typeof apiClient>;

beforeAll(async () => {
  api = await startLocalApi();
  client = apiClient(api.baseUrl);
});
afterAll(async () => {
  expect((await checkBooksTable(api.tables.documentClient, api.tables.names.books)).violations).toEqual([]);
  await api.close();
});

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const host = () => `Host: 127.0.0.1:${api.port}`;
const book = (extra: Record<string, unknown> = {}) => ({
  title: 'Second Round',
  author: 'Hostile',
  isbn: `round-two-${Math.random().toString(36).slice(2)}`,
  publicationYear: 2026,
  ...extra,
});

/** Raw bytes on a fresh connection, and everything the server wrote before it closed the connection. */
const untilClosed = async (bytes: string): Promise<string> => {
  const socket = await openSocket(api.port);
  const closed = closedByServer(socket);
  socket.write(bytes);
  return closed;
};

const responsesIn = (wire: string) => wire.match(/^HTTP\/1\.1 \d{3} /gm) ?? [];

const bodyOf = (wire: string) => JSON.parse(wire.slice(wire.indexOf('\r\n\r\n') + 4));

describe('framing (RFC 9112)', () => {
  it('two Host fields: 400 with errors.host, the same Host twice included, and the connection closed', async () => {
    for (const second of [`Host: 127.0.0.1:${api.port}`, 'Host: evil.example']) {
      const response = await rawRequest(
        api.port,
        rawHttp('GET /api/books HTTP/1.1', [host(), second, `Authorization: ${BASIC_DEMO}`]),
      );
      expect(response.status).toBe(400);
      expect(response.headers.connection).toBe('close');
      expect(JSON.parse(response.text)).toEqual({
        timestamp: expect.stringMatching(ISO_MS),
        status: 400,
        errors: { host: 'Host must be sent once' },
      });
    }
  });

  it('HTTP/1.1 without Host: 400 with the contract’s JSON body (errors.host); HTTP/1.0 without Host is served', async () => {
    const response = await rawRequest(api.port, rawHttp('GET /api/books HTTP/1.1', [`Authorization: ${BASIC_DEMO}`]));
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(response.text)).toEqual({
      timestamp: expect.stringMatching(ISO_MS),
      status: 400,
      errors: { host: 'Host is required in an HTTP/1.1 request' },
    });
    const old = await rawRequest(api.port, rawHttp('GET /api/openapi.json HTTP/1.0', []));
    expect(old.status).toBe(200);
  });

  it('HTTP/1.0 with Transfer-Encoding: chunked is faulty framing: 400, nothing stored, the connection closed, and a request smuggled behind it never answered', async () => {
    const body = JSON.stringify(book());
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const hidden = JSON.stringify(book({ author: 'Smuggled' }));
    const smuggled = `POST /api/books HTTP/1.1\r\n${host()}\r\nAuthorization: ${BASIC_DEMO}\r\nContent-Type: application/json\r\nContent-Length: ${hidden.length}\r\n\r\n${hidden}`;
    const wire = await untilClosed(
      [
        'POST /api/books HTTP/1.0',
        host(),
        `Authorization: ${BASIC_DEMO}`,
        'Content-Type: application/json',
        'Transfer-Encoding: chunked',
        'Connection: keep-alive',
        '',
        `${chunked}${smuggled}`,
      ].join('\r\n'),
    );
    expect(responsesIn(wire)).toStrictEqual(['HTTP/1.1 400 ']);
    expect(wire).toMatch(/\r\nConnection: close\r\n/i);
    expect(bodyOf(wire)).toEqual({
      timestamp: expect.stringMatching(ISO_MS),
      status: 400,
      errors: { request: 'Transfer-Encoding is not valid in an HTTP/1.0 request' },
    });
    const listed = await client.call('GET', '/api/books');
    expect(listed.json.filter((b: { author: string }) => ['Hostile', 'Smuggled'].includes(b.author))).toStrictEqual([]);
  });

  it('Expect other than 100-continue: 417 with the contract’s JSON body, and the handler never runs', async () => {
    const response = await rawRequest(
      api.port,
      rawHttp(
        'POST /api/books HTTP/1.1',
        [host(), `Authorization: ${BASIC_DEMO}`, 'Content-Type: application/json', 'Expect: bogus'],
        JSON.stringify(book({ author: 'Expectant' })),
      ),
    );
    expect(response.status).toBe(417);
    expect(JSON.parse(response.text)).toEqual({
      timestamp: expect.stringMatching(ISO_MS),
      status: 417,
      message: 'Expect may only be 100-continue',
    });
    const listed = await client.call('GET', '/api/books');
    expect(listed.json.filter((b: { author: string }) => b.author === 'Expectant')).toStrictEqual([]);
  });
});

describe('text fields and filters', () => {
  it.each(['-', '---', ' - - '])(
    'an ISBN that normalises to nothing (%j): 400 "ISBN is required", on POST, PUT and PATCH',
    async (isbn) => {
      const created = await client.call('POST', '/api/books', book());
      expect(created.status).toBe(201);
      const path = `/api/books/${created.json.id}`;
      for (const response of [
        await client.call('POST', '/api/books', book({ isbn })),
        await client.call('PUT', path, book({ isbn })),
        await client.call('PATCH', path, { isbn }),
      ]) {
        expect(response.status).toBe(400);
        expect(response.json).toEqual({
          timestamp: expect.stringMatching(ISO_MS),
          status: 400,
          errors: { isbn: 'ISBN is required' },
        });
      }
    },
  );

  it('a control character (NUL, ESC, DEL, a C1 control) in title, author or isbn: 400 with the field’s message; tab, LF and CR pass', async () => {
    for (const control of ['\u0000', '\u001b', '\u007f', '\u0085']) {
      const response = await client.call(
        'POST',
        '/api/books',
        book({ title: `a${control}b`, author: control, isbn: `1${control}` }),
      );
      expect(response.status).toBe(400);
      expect(response.json.errors).toEqual({
        title: 'Title must not contain control characters',
        author: 'Author must not contain control characters',
        isbn: 'ISBN must not contain control characters',
      });
    }
    const kept = await client.call('POST', '/api/books', book({ title: 'Line\tone\r\nline two\n' }));
    expect(kept.status).toBe(201);
    expect(kept.json.title).toBe('Line\tone\r\nline two\n');
  });

  it.each(['%FF', 'a%C3', '%ED%A0%80', '%C0%AF'])(
    'an author filter whose bytes are not UTF-8 (%s): 400 with errors.author, not an empty list',
    async (encoded) => {
      const response = await client.call('GET', `/api/books?author=${encoded}`);
      expect(response.status).toBe(400);
      expect(response.json).toEqual({
        timestamp: expect.stringMatching(ISO_MS),
        status: 400,
        errors: { author: 'Author must be valid Unicode text' },
      });
    },
  );

  it('an author filter in UTF-8 is read as text', async () => {
    const created = await client.call('POST', '/api/books', book({ author: 'Émile Zola' }));
    expect(created.status).toBe(201);
    const response = await client.call('GET', '/api/books?author=%C3%A9mile%20zola');
    expect(response.status).toBe(200);
    expect(response.json.map((b: { id: number }) => b.id)).toContain(created.json.id);
  });
});

describe('Digest request-target binding', () => {
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');
  /** A right Digest answer for `uri`, to a fresh challenge, with or without the challenge's opaque. */
  const digestFor = async (uri: string, { withOpaque = true } = {}) => {
    const challenge = (await fetch(`${api.baseUrl}/api/books`)).headers.get('www-authenticate') ?? '';
    const param = (name: string) => new RegExp(`${name}="([^"]+)"`).exec(challenge)?.[1] ?? '';
    const ha1 = md5(`demo:${param('realm')}:demo`);
    const response = md5(`${ha1}:${param('nonce')}:00000001:c1:auth:${md5(`GET:${uri}`)}`);
    const opaque = withOpaque ? `, opaque="${param('opaque')}"` : '';
    return `Digest username="demo", realm="${param('realm')}", nonce="${param('nonce')}", uri="${uri}", qop=auth, nc=00000001, cnonce="c1", response="${response}"${opaque}`;
  };
  const get = async (path: string, authorization: string) =>
    (await fetch(`${api.baseUrl}${path}`, { headers: { authorization } })).status;

  it('an absolute-form uri is taken on this server’s own origin only', async () => {
    expect(await get('/api/books?limit=1', await digestFor(`${api.baseUrl}/api/books?limit=1`))).toBe(200);
    for (const other of [
      'http://evil.example/api/books?limit=1',
      `https://127.0.0.1:${api.port}/api/books?limit=1`,
      'http://127.0.0.1:1/api/books?limit=1',
    ]) {
      expect(await get('/api/books?limit=1', await digestFor(other)), other).toBe(401);
    }
  });

  it('an encoded slash never stands for a path separator; other escapes still do', async () => {
    expect(await get('/api/books?limit=1', await digestFor('/api%2Fbooks?limit=1'))).toBe(401);
    expect(await get('/api/books?limit=1', await digestFor('/api/%62ooks?limit=1'))).toBe(200);
  });

  it('a response without opaque is taken (the spec calls it optional); a wrong opaque is refused', async () => {
    expect(await get('/api/books?limit=1', await digestFor('/api/books?limit=1', { withOpaque: false }))).toBe(200);
    expect(await get('/api/books?limit=1', await digestFor('/api/books?limit=1'))).toBe(200);
    const foreign = (await digestFor('/api/books?limit=1')).replace(/opaque="[^"]+"/, 'opaque="0000"');
    expect(await get('/api/books?limit=1', foreign)).toBe(401);
  });

  it('the spec’s minimal request (no qop, no opaque, no algorithm) with the right password gets 200', async () => {
    const challenge = (await fetch(`${api.baseUrl}/api/books`)).headers.get('www-authenticate') ?? '';
    const param = (name: string) => new RegExp(`${name}="([^"]+)"`).exec(challenge)?.[1] ?? '';
    const uri = '/api/books?limit=1';
    const response = md5(`${md5(`demo:${param('realm')}:demo`)}:${param('nonce')}:${md5(`GET:${uri}`)}`);
    const minimal = `Digest username="demo", realm="${param('realm')}", nonce="${param('nonce')}", uri="${uri}", response="${response}"`;
    expect(await get(uri, minimal)).toBe(200);
    const wrong = md5(`${md5(`demo:${param('realm')}:nope`)}:${param('nonce')}:${md5(`GET:${uri}`)}`);
    expect(await get(uri, minimal.replace(response, wrong))).toBe(401);
  });
});
