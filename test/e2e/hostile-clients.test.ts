import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorizerFailure } from '../../local/authorizer-gateway';
import { checkBooksTable } from '../../ops/invariants';
import { apiClient } from '../support/api-client';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';
import { captureLogs } from '../support/log-capture';
import { closedByServer, openSocket, rawHttp, rawRequest } from '../support/raw-http';

/**
 * Requests an attacker would send to the local server, over raw sockets (bytes as they are, which
 * fetch would refuse to send): each gets the contract's answer, never a 5xx, and the server keeps
 * answering after every one of them.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
let client: ReturnType<typeof apiClient>;
const logs = captureLogs();

beforeAll(async () => {
  api = await startLocalApi();
  client = apiClient(api.baseUrl);
  for (let i = 1; i <= 3; i++) {
    const book = { title: `Hostile ${i}`, author: 'Sturdy', isbn: `hostile-${i}`, publicationYear: 2000 + i };
    expect((await client.call('POST', '/api/books', book)).status).toBe(201);
  }
});
afterAll(async () => {
  logs.restore();
  expect((await checkBooksTable(api.tables.documentClient, api.tables.names.books)).violations).toEqual([]);
  await api.close();
});

const send = (requestLine: string, headers: (string | Buffer)[], body?: string | Buffer) =>
  rawRequest(api.port, rawHttp(requestLine, [`Host: 127.0.0.1:${api.port}`, ...headers], body));

/** Like `send`, with the Host line the caller gives instead of the usual one. */
const sendWithHost = (requestLine: string, host: string | Buffer, headers: string[] = []) =>
  rawRequest(api.port, rawHttp(requestLine, [Buffer.concat([Buffer.from('Host: '), Buffer.from(host)]), ...headers]));

const expectStillServing = async () => {
  const response = await fetch(`${api.baseUrl}/api/openapi.json`);
  expect(response.status).toBe(200);
};

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const json = { 'Content-Type': 'application/json' };
const bookCount = async () => (await client.call('GET', '/api/books')).json.length as number;

describe('the Host header', () => {
  it.each([
    ['a euro sign in UTF-8 (the request that used to stop the server)', Buffer.from('€', 'utf8')],
    ['Latin-1 text', Buffer.from([0x63, 0x61, 0x66, 0xe9])],
    ['a path', 'evil.example/x'],
    ['user info', 'user@evil.example'],
    ['a space inside', 'a b'],
    ['a bad port', '127.0.0.1:99999'],
  ])('malformed (%s): 400 with errors.host, before authentication, on every route', async (_, host) => {
    for (const line of [
      'GET /api/books?limit=1 HTTP/1.1',
      'POST /api/books HTTP/1.1',
      'GET /api/openapi.json HTTP/1.1',
    ]) {
      const response = await sendWithHost(line, host, [`Authorization: ${BASIC_DEMO}`]);
      expect(response.status, line).toBe(400);
      expect(JSON.parse(response.text)).toEqual({
        timestamp: expect.stringMatching(ISO_MS),
        status: 400,
        errors: { host: 'Host must be a host name or IP address, optionally with a port' },
      });
    }
    await expectStillServing();
  });

  it('another site’s name never reaches Location, Link or the OpenAPI servers URL: they name the server itself', async () => {
    const origin = `http://127.0.0.1:${api.port}`;
    const book = JSON.stringify({ title: 'Elsewhere', author: 'A', isbn: 'hostile-host', publicationYear: 2001 });
    const withBody = await rawRequest(
      api.port,
      rawHttp(
        'POST /api/books HTTP/1.1',
        ['Host: evil.example', `Authorization: ${BASIC_DEMO}`, 'Content-Type: application/json'],
        book,
      ),
    );
    expect(withBody.status).toBe(201);
    expect(withBody.headers.location).toBe(`${origin}/api/books/${JSON.parse(withBody.text).id}`);
    const page = await sendWithHost('GET /api/books?limit=1 HTTP/1.1', 'evil.example', [
      `Authorization: ${BASIC_DEMO}`,
    ]);
    expect(page.status).toBe(200);
    expect(page.headers.link).toMatch(new RegExp(`^<${origin}/api/books\\?limit=1&cursor=[^>]+>; rel="next"$`));
    const document = await sendWithHost('GET /api/openapi.json HTTP/1.1', 'evil.example');
    expect(JSON.parse(document.text).servers).toEqual([{ url: origin }]);
  });
});

describe('Digest parameters echoed into Authentication-Info', () => {
  const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
  /** A Digest answer that is right in every respect but the grammar of its cnonce. */
  const answer = async (cnonce: string) => {
    const challenge = (await fetch(`${api.baseUrl}/api/books`)).headers.get('www-authenticate') ?? '';
    const param = (name: string) => new RegExp(`${name}="([^"]+)"`).exec(challenge)?.[1] ?? '';
    const ha1 = md5(`demo:${param('realm')}:demo`);
    const response = md5(`${ha1}:${param('nonce')}:00000001:${cnonce}:auth:${md5('GET:/api/books')}`);
    return `Digest username="demo", realm="${param('realm')}", nonce="${param('nonce')}", uri="/api/books", algorithm=MD5, qop=auth, nc=00000001, cnonce="${cnonce}", response="${response}", opaque="${param('opaque')}"`;
  };

  it.each([
    ['a euro sign', '€'],
    ['Latin-1 text', 'café'],
  ])('a cnonce holding %s: 401 with a fresh challenge, like any malformed credential', async (_, cnonce) => {
    const response = await send('GET /api/books HTTP/1.1', [
      Buffer.from(`Authorization: ${await answer(cnonce)}`, 'utf8'),
    ]);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Digest realm="books"/);
    await expectStillServing();
  });

  it('a control character never reaches the authorizer: HTTP parsing refuses the request with 400', async () => {
    const response = await send('GET /api/books HTTP/1.1', [`Authorization: ${await answer('a\u0001b')}`]);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toEqual({
      timestamp: expect.stringMatching(ISO_MS),
      status: 400,
      errors: { request: 'The request is not valid HTTP/1.1' },
    });
    await expectStillServing();
  });

  it('a plain cnonce is echoed as sent', async () => {
    const response = await send('GET /api/books HTTP/1.1', [`Authorization: ${await answer('0a4f113b')}`]);
    expect(response.status).toBe(200);
    expect(response.headers['authentication-info']).toMatch(/cnonce="0a4f113b", nc=00000001$/);
  });
});

describe('request targets the gateway has no route for', () => {
  it.each(['//', '//api/books', '///', '*', '/api//books', '/%', 'http://[/', '//:0'])(
    '%s: 404 without a body, for every method',
    async (target) => {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        const response = await send(`${method} ${target} HTTP/1.1`, [`Authorization: ${BASIC_DEMO}`]);
        expect(response.status, `${method} ${target}`).toBe(404);
        expect(response.text).toBe('');
      }
      await expectStillServing();
    },
  );
});

describe('bodies', () => {
  const post = (body: Buffer | string, contentType = 'application/json') =>
    send('POST /api/books HTTP/1.1', [`Authorization: ${BASIC_DEMO}`, `Content-Type: ${contentType}`], body);

  it('bytes that are not UTF-8: 400 with errors.body, nothing stored (never U+FFFD in their place)', async () => {
    const before = await bookCount();
    const latin1 = Buffer.from(
      '{"title":"caf\u00e9","author":"A","isbn":"hostile-latin1","publicationYear":2000}',
      'latin1',
    );
    for (const body of [
      latin1,
      Buffer.concat([Buffer.from('{"title":"'), Buffer.alloc(30_000, 0xff), Buffer.from('"}')]),
    ]) {
      const response = await post(body);
      expect(response.status).toBe(400); // 30,000 bad bytes are far below 64 KiB: not 413
      expect(JSON.parse(response.text).errors).toEqual({ body: 'Request body must be valid UTF-8' });
    }
    expect(await bookCount()).toBe(before);
  });

  it('a charset other than UTF-8: 415; the same bytes in UTF-8 are stored as sent', async () => {
    const book = '{"title":"caf\u00e9","author":"A","isbn":"hostile-charset","publicationYear":2000}';
    const refused = await post(Buffer.from(book, 'latin1'), 'application/json; charset=iso-8859-1');
    expect(refused.status).toBe(415);
    expect(JSON.parse(refused.text).message).toBe('Content-Type must be application/json, in UTF-8');
    const stored = await post(Buffer.from(book, 'utf8'), 'application/json; charset=UTF-8');
    expect(stored.status).toBe(201);
    expect(JSON.parse(stored.text).title).toBe('café');
  });

  it('media types compared case-insensitively; merge-patch+json on PATCH', async () => {
    const created = await post(
      '{"title":"Case","author":"A","isbn":"hostile-case","publicationYear":2000}',
      'APPLICATION/JSON',
    );
    expect(created.status).toBe(201);
    const { id } = JSON.parse(created.text);
    const patched = await send(
      `PATCH /api/books/${id} HTTP/1.1`,
      [`Authorization: ${BASIC_DEMO}`, 'Content-Type: Application/Merge-Patch+JSON'],
      '{"title":"Merged"}',
    );
    expect(patched.status).toBe(200);
    expect(JSON.parse(patched.text).title).toBe('Merged');
    expect((await post('{"title":"x"}', 'application/merge-patch+json')).status).toBe(415); // not on POST
  });

  it.each([
    ['title', 'Title must be valid Unicode text'],
    ['author', 'Author must be valid Unicode text'],
    ['isbn', 'ISBN must be valid Unicode text'],
  ])(
    'an unpaired surrogate in %s: 400 with the field’s message (DynamoDB would store it as "?")',
    async (field, message) => {
      const before = await bookCount();
      for (const text of ['\\ud800', 'x\\udc00', '\\udfff\\ud800']) {
        const book = { title: 'T', author: 'A', isbn: `hostile-lone-${field}`, publicationYear: 2000, [field]: '@' };
        const response = await post(JSON.stringify(book).replace('"@"', `"${text}"`));
        expect(response.status, text).toBe(400);
        expect(JSON.parse(response.text).errors).toEqual({ [field]: message });
      }
      expect(await bookCount()).toBe(before);
      const { id } = JSON.parse(
        (await post('{"title":"P","author":"A","isbn":"hostile-pair","publicationYear":2000}')).text,
      );
      const patched = await send(
        `PATCH /api/books/${id} HTTP/1.1`,
        [`Authorization: ${BASIC_DEMO}`, 'Content-Type: application/json'],
        `{"${field}":"\\ud800"}`,
      );
      expect(patched.status).toBe(400);
      await client.call('DELETE', `/api/books/${id}`);
    },
  );

  it('characters outside the BMP (paired surrogates) are kept as sent', async () => {
    const response = await post(
      '{"title":"\\ud83d\\ude00 Smile","author":"A","isbn":"hostile-emoji","publicationYear":2000}',
    );
    expect(response.status).toBe(201);
    expect(JSON.parse(response.text).title).toBe('😀 Smile');
  });
});

describe('a response that cannot be written', () => {
  it('becomes the logged generic 500; the server lives on', async () => {
    // A stand-in for the list handler that answers with a header value Node refuses to write.
    const root = mkdtempSync(join(tmpdir(), 'hostile-root-'));
    mkdirSync(join(root, 'functions', 'books'), { recursive: true });
    writeFileSync(
      join(root, 'functions', 'books', 'list.ts'),
      "export const handler = async () => ({ statusCode: 200, headers: { 'X-Echo': '\\u20ac' }, body: '[]' });\n",
    );
    const broken = await startLocalApi({ publicReads: true, root });
    const errors: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const response = await fetch(`${broken.baseUrl}/api/books`);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({
        timestamp: expect.stringMatching(ISO_MS),
        status: 500,
        message: 'An unexpected error occurred',
      });
      expect(response.headers.get('x-echo')).toBeNull();
      expect(errors.map((args) => String(args[0]))).toEqual([expect.stringMatching(/response could not be written/)]);
      expect(String(errors[0]?.[1])).toMatch(/Invalid character in header content/);
      expect((await fetch(`${broken.baseUrl}/api/books`)).status).toBe(500); // still answering
    } finally {
      console.error = original;
      await broken.close();
    }
  });
});

describe('the local server’s limits', () => {
  let limited: Awaited<ReturnType<typeof startLocalApi>>;
  beforeAll(async () => {
    limited = await startLocalApi({ limits: { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, maxConnections: 4 } });
  });
  afterAll(async () => limited.close());

  it('drops a request whose headers stall', async () => {
    const socket = await openSocket(limited.port);
    const closed = closedByServer(socket);
    socket.write('GET /api/books HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // and never the blank line
    const started = performance.now();
    expect(await closed).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*"status":408/);
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('drops a stalled body with 408, before it reaches the authorizer', async () => {
    const socket = await openSocket(limited.port);
    const closed = closedByServer(socket);
    socket.write(
      `POST /api/books HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10485760\r\n\r\n{"title":`,
    );
    const started = performance.now();
    expect(await closed).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*"status":408/);
    expect(performance.now() - started).toBeLessThan(15_000);
    expect((await fetch(`${limited.baseUrl}/api/openapi.json`)).status).toBe(200);
  });

  it('closes connections past the cap at once, and serves again when they are gone', async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => openSocket(limited.port)));
    const extra = await openSocket(limited.port).catch(() => undefined);
    if (extra) expect(await closedByServer(extra)).toBe('');
    for (const socket of held) socket.destroy();
    // The server sees the closes when its event loop gets to them: later on a loaded machine.
    await vi.waitFor(async () => expect((await fetch(`${limited.baseUrl}/api/openapi.json`)).status).toBe(200), {
      timeout: 5_000,
      interval: 100,
    });
  });

  it('keeps the gateway’s 10 MB limit: 413 from the server itself', async () => {
    const response = await rawRequest(
      limited.port,
      rawHttp(
        'POST /api/books HTTP/1.1',
        ['Host: 127.0.0.1', `Authorization: ${BASIC_DEMO}`, 'Content-Type: application/json'],
        Buffer.alloc(10 * 1024 * 1024 + 1, 0x20),
      ),
    );
    expect(response.status).toBe(413);
  });
});

describe('contention on Dynoxide', () => {
  const patchAll = async (id: number, bodies: object[]) =>
    Promise.all(
      bodies.map(async (body) => {
        const response = await fetch(`${api.baseUrl}/api/books/${id}`, {
          method: 'PATCH',
          headers: { authorization: BASIC_DEMO, ...json },
          body: JSON.stringify(body),
        });
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: (await response.json()) as { title?: string; isbn?: string },
        };
      }),
    );

  const expectOnlySuccessOrBusy = (answers: Awaited<ReturnType<typeof patchAll>>) => {
    for (const answer of answers) {
      expect([200, 503], JSON.stringify(answer)).toContain(answer.status);
      if (answer.status === 503) {
        expect(answer.retryAfter).toBe('1');
        // The handler's (the write kept conflicting) or, on a loaded machine, the gateway's when the
        // authorizer's calls ran out of time: AUTHORIZER_FAILURE's body has no timestamp.
        const fromGateway = !('timestamp' in answer.body);
        expect(answer.body).toEqual(
          fromGateway
            ? JSON.parse(authorizerFailure().body)
            : { timestamp: expect.stringMatching(ISO_MS), status: 503, message: expect.any(String) },
        );
      }
    }
    expect(answers.some((answer) => answer.status === 200)).toBe(true);
  };

  it('128 concurrent PATCHes of one book’s title: each 200 or 503 + Retry-After; the book holds one of the titles that got 200', async () => {
    const { id } = (
      await client.call('POST', '/api/books', {
        title: 'Race',
        author: 'A',
        isbn: 'hostile-race',
        publicationYear: 2000,
      })
    ).json;
    const answers = await patchAll(
      id,
      Array.from({ length: 128 }, (_, i) => ({ title: `Race ${i}` })),
    );
    expectOnlySuccessOrBusy(answers);
    const read = await client.call('GET', `/api/books/${id}`);
    expect(read.status, JSON.stringify(read.json)).toBe(200);
    const final = read.json;
    expect(answers.filter((a) => a.status === 200).map((a) => a.body.title)).toContain(final.title);
    console.log(
      `128 title PATCHes: ${answers.filter((a) => a.status === 200).length} × 200, ${answers.filter((a) => a.status === 503).length} × 503`,
    );
  }, 180_000);

  it('64 concurrent ISBN-changing PATCHes: each 200 or 503; the table’s ISBN claims stay consistent', async () => {
    const { id } = (
      await client.call('POST', '/api/books', {
        title: 'Move',
        author: 'A',
        isbn: 'hostile-move',
        publicationYear: 2000,
      })
    ).json;
    const answers = await patchAll(
      id,
      Array.from({ length: 64 }, (_, i) => ({ isbn: `hostile-move-${i}` })),
    );
    expectOnlySuccessOrBusy(answers);
    const read = await client.call('GET', `/api/books/${id}`);
    expect(read.status, JSON.stringify(read.json)).toBe(200);
    const final = read.json;
    expect(answers.filter((a) => a.status === 200).map((a) => a.body.isbn)).toContain(final.isbn);
    expect((await checkBooksTable(api.tables.documentClient, api.tables.names.books)).violations).toEqual([]);
    console.log(
      `64 ISBN PATCHes: ${answers.filter((a) => a.status === 200).length} × 200, ${answers.filter((a) => a.status === 503).length} × 503`,
    );
  }, 180_000);
});
