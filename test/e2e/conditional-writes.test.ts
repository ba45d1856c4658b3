import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBooksTable } from '../../ops/invariants';
import { userRecord } from '../../ops/user-records';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { demoClient } from '../support/demo-client';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/**
 * Conditional requests (ETag, If-Match, If-None-Match, the requireIfMatch option) and retried
 * creates (Idempotency-Key), through the local server: the same handlers and authorizer as Lambda.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
const ALICE = `Basic ${Buffer.from('alice:alice-password').toString('base64')}`;
beforeAll(async () => {
  api = await startLocalApi();
  await new DynamoUserStore(api.tables.documentClient, api.tables.names.auth).put({
    ...userRecord('alice', 'alice-password', 'books'),
    role: 'admin',
  });
});
afterAll(() => api.close());

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const { newBook, call } = demoClient(() => api.baseUrl, 'cond', {
  title: 'A Wizard of Earthsea',
  author: 'Ursula K. Le Guin',
  publicationYear: 1968,
});

const create = async (extra: Record<string, unknown> = {}) => {
  const response = await call('POST', '/api/books', newBook(extra));
  expect(response.status).toBe(201);
  return { book: response.json, etag: response.headers.get('etag') as string };
};

const expectPreconditionFailed = (
  response: Awaited<ReturnType<typeof call>>,
  currentTag: string,
  header: 'If-Match' | 'If-None-Match' = 'If-Match',
) => {
  expect(response.status).toBe(412);
  expect(response.headers.get('etag')).toBe(currentTag);
  expect(response.json).toEqual({
    timestamp: expect.stringMatching(ISO_MS),
    status: 412,
    message: expect.stringContaining(header),
  });
};

describe('ETag', () => {
  it('comes with every response that carries one book, strong and quoted, new with every write', async () => {
    const { book, etag } = await create();
    expect(etag).toMatch(/^"[^"]+"$/);
    const read = await call('GET', `/api/books/${book.id}`);
    expect(read.headers.get('etag')).toBe(etag);
    const put = await call('PUT', `/api/books/${book.id}`, newBook({ isbn: book.isbn, title: 'Retitled' }));
    const patched = await call('PATCH', `/api/books/${book.id}`, { title: 'Again' });
    const tags = [etag, put.headers.get('etag'), patched.headers.get('etag')];
    expect(new Set(tags).size).toBe(3);
    expect((await call('GET', `/api/books/${book.id}`)).headers.get('etag')).toBe(tags[2]);
  });

  it('is not sent with a list', async () => {
    await create();
    const list = await call('GET', '/api/books');
    expect(list.status).toBe(200);
    expect(list.headers.get('etag')).toBeNull();
  });
});

describe('If-Match', () => {
  it('a current tag lets PUT, PATCH and DELETE through, each answering the next tag', async () => {
    const { book, etag } = await create();
    const put = await call('PUT', `/api/books/${book.id}`, newBook({ isbn: book.isbn }), { 'if-match': etag });
    expect(put.status).toBe(200);
    const patched = await call(
      'PATCH',
      `/api/books/${book.id}`,
      { publicationYear: 1969 },
      {
        'if-match': `"stale", ${put.headers.get('etag')}`,
      },
    );
    expect(patched.status).toBe(200);
    expect(patched.json.publicationYear).toBe(1969);
    const deleted = await call('DELETE', `/api/books/${book.id}`, undefined, {
      'if-match': patched.headers.get('etag') as string,
    });
    expect(deleted.status).toBe(204);
  });

  it('a stale tag gets 412 with the current ETag on PUT, PATCH (ISBN kept or moved) and DELETE, and the book is unchanged', async () => {
    const { book, etag: stale } = await create();
    const changed = await call('PATCH', `/api/books/${book.id}`, { title: 'Changed by someone else' });
    const current = changed.headers.get('etag') as string;
    const path = `/api/books/${book.id}`;
    for (const attempt of [
      call('PUT', path, newBook({ isbn: book.isbn }), { 'if-match': stale }),
      call('PUT', path, newBook({ isbn: `${book.isbn}-moved` }), { 'if-match': stale }),
      call('PATCH', path, { title: 'Lost' }, { 'if-match': stale }),
      call('PATCH', path, {}, { 'if-match': stale }),
      call('DELETE', path, undefined, { 'if-match': stale }),
      call('DELETE', path, undefined, { 'if-match': `W/${current}` }),
    ]) {
      expectPreconditionFailed(await attempt, current);
    }
    const after = await call('GET', path);
    expect(after.json).toEqual(changed.json);
    expect(after.headers.get('etag')).toBe(current);
  });

  it('* matches any existing book; a missing book is 404 whatever the tag', async () => {
    const { book } = await create();
    const path = `/api/books/${book.id}`;
    expect((await call('PATCH', path, { title: 'Star' }, { 'if-match': '*' })).status).toBe(200);
    expect((await call('DELETE', path, undefined, { 'if-match': '*' })).status).toBe(204);
    for (const tag of ['*', '"anything"']) {
      expect((await call('PUT', path, newBook(), { 'if-match': tag })).status).toBe(404);
      expect((await call('PATCH', path, { title: 'x' }, { 'if-match': tag })).status).toBe(404);
      expect((await call('DELETE', path, undefined, { 'if-match': tag })).status).toBe(404);
    }
  });

  it('compares tags character by character: a tag never issued that decodes to the current version is 412', async () => {
    const { book, etag } = await create();
    const path = `/api/books/${book.id}`;
    expect(etag).toBe(`"${Buffer.from(`${book.id}.1`).toString('base64url')}"`);
    const forged = `"${Buffer.from(`${book.id}.0000000000000001`).toString('base64url')}"`;
    expectPreconditionFailed(await call('PATCH', path, { title: 'Forged' }, { 'if-match': forged }), etag);
    expectPreconditionFailed(await call('PUT', path, newBook({ isbn: book.isbn }), { 'if-match': forged }), etag);
    expectPreconditionFailed(await call('DELETE', path, undefined, { 'if-match': forged }), etag);
    expect((await call('GET', path, undefined, { 'if-none-match': forged })).status).toBe(200);
    expect((await call('GET', path, undefined, { 'if-none-match': `W/${forged}` })).status).toBe(200);
    const after = await call('GET', path);
    expect(after.json).toEqual(book);
    expect(after.headers.get('etag')).toBe(etag);
  });

  it('a malformed value names no tag: 412 for an existing book, and a GET answers 200', async () => {
    const { book, etag } = await create();
    const path = `/api/books/${book.id}`;
    expectPreconditionFailed(await call('PATCH', path, { title: 'x' }, { 'if-match': 'no-quotes' }), etag);
    expect((await call('GET', path, undefined, { 'if-none-match': `${etag} junk` })).status).toBe(200);
  });

  it('two PUTs racing with the same tag: exactly one 200 and one 412', async () => {
    const { book, etag } = await create();
    const path = `/api/books/${book.id}`;
    const results = await Promise.all(
      ['First', 'Second'].map((title) => call('PUT', path, newBook({ isbn: book.isbn, title }), { 'if-match': etag })),
    );
    expect(results.map((r) => r.status).sort()).toStrictEqual([200, 412]);
    const winner = results.find((r) => r.status === 200);
    expect((await call('GET', path)).json.title).toBe(winner?.json.title);
  });
});

describe('If-None-Match on writes (RFC 9110 §13.1.2)', () => {
  it('* refuses PUT, PATCH and DELETE on an existing book with 412 and the current ETag, and changes nothing', async () => {
    const { book, etag } = await create();
    const path = `/api/books/${book.id}`;
    for (const attempt of [
      call('PUT', path, newBook({ isbn: book.isbn, title: 'Overwritten' }), { 'if-none-match': '*' }),
      call('PATCH', path, { title: 'Overwritten' }, { 'if-none-match': '*' }),
      call('PATCH', path, {}, { 'if-none-match': '*' }),
      call('DELETE', path, undefined, { 'if-none-match': '*' }),
    ]) {
      expectPreconditionFailed(await attempt, etag, 'If-None-Match');
    }
    const after = await call('GET', path);
    expect(after.json).toEqual(book);
    expect(after.headers.get('etag')).toBe(etag);
  });

  it('a list naming the current tag (weak comparison) is 412; one naming only other versions lets the write through', async () => {
    const { book, etag } = await create();
    const path = `/api/books/${book.id}`;
    expectPreconditionFailed(
      await call('PATCH', path, { title: 'x' }, { 'if-none-match': `"other", W/${etag}` }),
      etag,
      'If-None-Match',
    );
    expectPreconditionFailed(
      await call('PUT', path, newBook({ isbn: `${book.isbn}-moved` }), { 'if-none-match': etag }),
      etag,
      'If-None-Match',
    );
    const patched = await call('PATCH', path, { title: 'Moved on' }, { 'if-none-match': '"other"' });
    expect(patched.status).toBe(200);
    const deleted = await call('DELETE', path, undefined, { 'if-none-match': etag });
    expect(deleted.status).toBe(204);
  });

  it('a missing book is 404 under *, and If-Match is evaluated first', async () => {
    const { book, etag } = await create();
    const path = `/api/books/${book.id}`;
    const stale = await call('PATCH', path, { title: 'x' }, { 'if-match': '"stale"', 'if-none-match': '*' });
    expectPreconditionFailed(stale, etag, 'If-Match');
    expect((await call('DELETE', path)).status).toBe(204);
    expect((await call('PUT', path, newBook(), { 'if-none-match': '*' })).status).toBe(404);
    expect((await call('DELETE', path, undefined, { 'if-none-match': '*' })).status).toBe(404);
  });
});

describe('empty list elements (RFC 9110 §5.6.1)', () => {
  it('are accepted in If-Match and If-None-Match: a trailing or leading comma does not spoil the list', async () => {
    const { book, etag } = await create();
    const path = `/api/books/${book.id}`;
    const put = await call('PUT', path, newBook({ isbn: book.isbn }), { 'if-match': `${etag},` });
    expect(put.status).toBe(200);
    const current = put.headers.get('etag') as string;
    expect((await call('GET', path, undefined, { 'if-none-match': `, ${current}` })).status).toBe(304);
    expect((await call('DELETE', path, undefined, { 'if-match': `,${current} ,` })).status).toBe(204);
  });
});

describe('If-None-Match on GET', () => {
  it('answers 304 with the ETag and no body when the tag is current, 200 when not', async () => {
    const { book, etag } = await create();
    const path = `/api/books/${book.id}`;
    const notModified = await call('GET', path, undefined, { 'if-none-match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    expect(notModified.text).toBe('');
    expect((await call('GET', path, undefined, { 'if-none-match': `W/${etag}` })).status).toBe(304);
    await call('PATCH', path, { title: 'Newer' });
    const modified = await call('GET', path, undefined, { 'if-none-match': etag });
    expect(modified.status).toBe(200);
    expect(modified.json.title).toBe('Newer');
  });

  it('puts no body and no Content-Length on the wire for a 304', async () => {
    const { book, etag } = await create();
    const raw = await new Promise<{ status: number; headers: Record<string, unknown>; bytes: number }>((done, fail) => {
      const req = request(`${api.baseUrl}/api/books/${book.id}`, {
        headers: { authorization: BASIC_DEMO, 'if-none-match': etag },
      });
      req.on('response', (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
      });
      req.on('error', fail);
      req.end();
    });
    expect(raw.status).toBe(304);
    expect(raw.bytes).toBe(0);
    expect(raw.headers).not.toHaveProperty('content-length');
    expect(raw.headers).not.toHaveProperty('content-type');
    expect(raw.headers.etag).toBe(etag);
  });
});

describe('requireIfMatch (REQUIRE_IF_MATCH=true)', () => {
  it('answers 428 to PUT, PATCH and DELETE without If-Match, and lets conditional ones and POST through', async () => {
    const { book, etag } = await create();
    const path = `/api/books/${book.id}`;
    process.env.REQUIRE_IF_MATCH = 'true';
    try {
      for (const [method, body] of [
        ['PUT', newBook({ isbn: book.isbn })],
        ['PATCH', { title: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        const response = await call(method, path, body);
        expect(response.status, method).toBe(428);
        expect(response.json).toEqual({
          timestamp: expect.stringMatching(ISO_MS),
          status: 428,
          message: expect.stringContaining('If-Match'),
        });
      }
      expect((await call('PATCH', path, { title: 'Allowed' }, { 'if-match': etag })).status).toBe(200);
      expect((await call('POST', '/api/books', newBook())).status).toBe(201);
    } finally {
      delete process.env.REQUIRE_IF_MATCH;
    }
    expect((await call('PATCH', path, { title: 'Optional again' })).status).toBe(200);
  });
});

describe('Idempotency-Key on POST', () => {
  it('a repeat with the same key and body gets the same 201 (id, Location, body, ETag) and makes no second book', async () => {
    const body = newBook();
    const headers = { 'idempotency-key': '"8e03978e-40d5-43e8-bc93-6894a57f9324"' };
    const first = await call('POST', '/api/books', body, headers);
    expect(first.status).toBe(201);
    await call('PATCH', `/api/books/${first.json.id}`, { title: 'Changed since' });
    const again = await call('POST', '/api/books', { ...body }, headers);
    expect(again.status).toBe(201);
    expect(again.text, 'the very bytes of the first body').toBe(first.text);
    for (const name of ['location', 'etag']) expect(again.headers.get(name)).toBe(first.headers.get(name));
    const list = await call('GET', `/api/books?author=${encodeURIComponent(body.author)}`);
    expect(list.json.filter((b: { isbn: string }) => b.isbn === body.isbn)).toHaveLength(1);
  });

  it('the same key with another body is 422, and nothing is created', async () => {
    const headers = { 'idempotency-key': 'reused-key' };
    const first = await call('POST', '/api/books', newBook(), headers);
    expect(first.status).toBe(201);
    const other = newBook();
    const response = await call('POST', '/api/books', other, headers);
    expect(response.status).toBe(422);
    expect(response.json).toEqual({
      timestamp: expect.stringMatching(ISO_MS),
      status: 422,
      message: 'This Idempotency-Key was already used with a different request body',
    });
    const list = await call('GET', '/api/books');
    expect(list.json.some((b: { isbn: string }) => b.isbn === other.isbn)).toBe(false);
  });

  it('another user’s identical key is independent', async () => {
    const headers = { 'idempotency-key': 'shared-key' };
    const mine = await call('POST', '/api/books', newBook(), headers);
    const theirs = await call('POST', '/api/books', newBook(), { ...headers, authorization: ALICE });
    expect([mine.status, theirs.status]).toStrictEqual([201, 201]);
    expect(theirs.json.id).not.toBe(mine.json.id);
  });

  it('concurrent requests with one key make one book, and all get its 201', async () => {
    const body = newBook();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => call('POST', '/api/books', body, { 'idempotency-key': '"race"' })),
    );
    expect(responses.map((r) => r.status)).toStrictEqual(Array(6).fill(201));
    expect(new Set(responses.map((r) => r.json.id)).size).toBe(1);
    expect(new Set(responses.map((r) => r.headers.get('etag'))).size).toBe(1);
  });

  it('without a key a repeat is the contract’s 409; a malformed key is 400', async () => {
    const body = newBook();
    expect((await call('POST', '/api/books', body)).status).toBe(201);
    const again = await call('POST', '/api/books', body);
    expect(again.status).toBe(409);
    expect(again.text).toBe('');
    const malformed = await call('POST', '/api/books', newBook(), { 'idempotency-key': '"unterminated' });
    expect(malformed.status).toBe(400);
    expect(malformed.json.errors).toEqual({ 'Idempotency-Key': expect.any(String) });
  });

  it('leaves a table whose books, claims and key records all agree', async () => {
    const { violations } = await checkBooksTable(api.tables.documentClient, api.tables.names.books);
    expect(violations).toStrictEqual([]);
  });
});
