import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_MAX_BODY_BYTES } from '../../local/gateway';
import { MAX_AUTHORIZATION_LENGTH } from '../../shared/auth/authorization-header';
import { MAX_BODY_BYTES } from '../../shared/http/json-body';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/**
 * Oversized and pathological requests through the local server (gateway rules, authorizer, handler):
 * each gets a 4xx quickly, never a 5xx and never a hang.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

const ISO_MS = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const QUICK_MS = 5_000;

const send = async (
  method: string,
  target: string,
  options: { body?: string; headers?: Record<string, string> } = {},
) => {
  const started = performance.now();
  const response = await fetch(`${api.baseUrl}${target}`, {
    method,
    headers: {
      authorization: BASIC_DEMO,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  expect(ms, `${method} ${target.slice(0, 60)} took ${ms} ms`).toBeLessThan(QUICK_MS);
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined };
};

const valid = { title: 'T', author: 'A', isbn: 'limits-1', publicationYear: 2000 };
const withYear = (raw: string) => `{"title":"T","author":"A","isbn":"limits-y","publicationYear":${raw}}`;

describe('request size limits', () => {
  it(`a body over ${MAX_BODY_BYTES} bytes: 413 with the error body; at the limit it is read`, async () => {
    const padding = (bytes: number) =>
      JSON.stringify({ ...valid, title: 'x'.repeat(bytes - JSON.stringify({ ...valid, title: '' }).length) });
    const over = await send('POST', '/api/books', { body: padding(MAX_BODY_BYTES + 1) });
    expect(over.status).toBe(413);
    expect(over.json).toEqual({
      timestamp: ISO_MS,
      status: 413,
      message: `Request body must be at most ${MAX_BODY_BYTES} bytes`,
    });
    const at = await send('POST', '/api/books', { body: padding(MAX_BODY_BYTES) });
    expect(at.status).toBe(400); // read and validated: the title is too long, not the body
    expect(at.json.errors).toEqual({ title: 'Title must be at most 500 characters' });
  });

  it('a body over the gateway’s 10 MB: 413 from the gateway, also on PUT and PATCH', async () => {
    const body = `"${'x'.repeat(GATEWAY_MAX_BODY_BYTES)}"`;
    for (const [method, target] of [
      ['POST', '/api/books'],
      ['PUT', '/api/books/1'],
      ['PATCH', '/api/books/1'],
    ] as const) {
      const response = await send(method, target, { body });
      expect(response.status).toBe(413);
      expect(response.json).toMatchObject({ status: 413, message: expect.any(String) });
    }
  });

  it('headers over the gateway’s 10,240 bytes, or over Node’s 16 KiB: 431', async () => {
    expect((await send('GET', '/api/books', { headers: { 'x-padding': 'p'.repeat(11_000) } })).status).toBe(431);
    expect((await send('GET', '/api/books', { headers: { 'x-padding': 'p'.repeat(20_000) } })).status).toBe(431);
    expect((await send('GET', '/api/books', { headers: { 'x-padding': 'p'.repeat(9_000) } })).status).toBe(200);
  });

  it(`an Authorization header over ${MAX_AUTHORIZATION_LENGTH} characters: 401 with a fresh challenge`, async () => {
    for (const authorization of [
      `Basic ${'A'.repeat(MAX_AUTHORIZATION_LENGTH)}`,
      `Digest username="${'u'.repeat(MAX_AUTHORIZATION_LENGTH)}", realm="books"`,
    ]) {
      const response = await send('GET', '/api/books', { headers: { authorization } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Digest realm="books"/);
    }
  });

  it('very long query strings: the filter answers, a year that is no integer is a 400, past the header quota a 431', async () => {
    const longAuthor = await send('GET', `/api/books?author=${'a'.repeat(9_000)}`);
    expect(longAuthor).toMatchObject({ status: 200, json: [] });
    const wideAuthor = await send('GET', `/api/books?author=${encodeURIComponent('€'.repeat(1_000))}`); // 3,000 UTF-8 bytes: over DynamoDB's key limit
    expect(wideAuthor).toMatchObject({ status: 200, json: [] });
    expect((await send('GET', '/api/books?author=')).json).toEqual([]);
    const longYear = await send('GET', `/api/books?year=${'9'.repeat(9_000)}`);
    expect(longYear.status).toBe(400);
    expect(longYear.json.errors).toEqual({ year: 'Year must be an integer' });
    const manyParameters = Array.from({ length: 800 }, (_, i) => `p${i}=${i}`).join('&');
    expect((await send('GET', `/api/books?${manyParameters}`)).status).toBe(200);
    expect((await send('GET', `/api/books?author=${'a'.repeat(12_000)}`)).status).toBe(431);
  });
});

describe('pathological JSON', () => {
  it('deeply nested arrays and objects within the size limit: 400, not a stack overflow', async () => {
    const depth = 30_000;
    const nestedArray = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const nestedObject = `${'{"a":'.repeat(depth / 3)}1${'}'.repeat(depth / 3)}`;
    const nestedTitle = `{"title":${nestedArray},"author":"A","isbn":"n","publicationYear":2000}`;
    for (const [method, target, body, status] of [
      ['POST', '/api/books', nestedArray, 400],
      ['POST', '/api/books', nestedObject, 400],
      ['POST', '/api/books', nestedTitle, 400],
      ['PATCH', '/api/books/1', nestedArray, 400],
      ['PATCH', '/api/books/1', nestedTitle, 400],
      ['PATCH', '/api/books/1', nestedObject, 404], // unknown keys are ignored; there is no book 1
    ] as const) {
      const response = await send(method, target, { body });
      expect(response.status, `${method} ${body.slice(0, 20)}`).toBe(status);
    }
  });

  it('huge, tiny and non-finite numbers for the year: 400 with the field message', async () => {
    for (const raw of [
      '1e400',
      '-1e400',
      '18446744073709551616',
      '9007199254740993',
      '2000.5',
      '1e-400',
      '9'.repeat(5_000),
    ]) {
      const response = await send('POST', '/api/books', { body: withYear(raw) });
      expect(response.status, raw).toBe(400);
      expect(Object.keys(response.json.errors), raw).toEqual(['publicationYear']);
    }
  });

  it('path ids beyond 2^53 or in exotic notations: 400 with errors.id', async () => {
    for (const id of ['18446744073709551616', '9007199254740992', '1e3', '0x10', '%F0%9F%93%9A', '1'.repeat(2_000)]) {
      const response = await send('GET', `/api/books/${id}`);
      expect(response.status, id).toBe(400);
      expect(response.json.errors).toEqual({ id: 'Book id must be a positive integer' });
    }
  });
});
