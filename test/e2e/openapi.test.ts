import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../shared/openapi/types';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

let api: Awaited<ReturnType<typeof startLocalApi>>;
let document: { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, Operation>> };

beforeAll(async () => {
  api = await startLocalApi();
  const response = await fetch(`${api.baseUrl}/api/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  document = (await response.json()) as typeof document;
});
afterAll(() => api.close());

/** The statuses the document lists for an operation. */
const documented = (method: string, path: string) =>
  Object.keys(document.paths[path]?.[method.toLowerCase()]?.responses ?? {}).map(Number);

describe('GET /api/openapi.json on the local server', () => {
  it('is served without credentials, as OpenAPI 3.1, with the URL the client called as server', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: api.baseUrl }]);
  });

  it('documents every status the running API answers', async () => {
    const book = { title: 'Doc', author: 'Spec', isbn: `doc-${process.pid}`, publicationYear: 1999 };
    const json = { 'Content-Type': 'application/json', Authorization: BASIC_DEMO };
    const calls: [string, string, RequestInit][] = [
      ['GET', '/api/books', {}],
      ['GET', '/api/books', { headers: { Authorization: BASIC_DEMO } }],
      ['GET', '/api/books', { headers: { Authorization: BASIC_DEMO }, query: '?year=abc' } as RequestInit],
      ['POST', '/api/books', { headers: json, body: JSON.stringify(book) }],
      ['POST', '/api/books', { headers: json, body: JSON.stringify(book) }],
      ['POST', '/api/books', { headers: json, body: '{}' }],
      ['POST', '/api/books', { headers: { ...json, 'Content-Type': 'text/plain' }, body: 'x' }],
      ['POST', '/api/books', { headers: json, body: JSON.stringify({ ...book, title: 'x'.repeat(70_000) }) }],
      ['GET', '/api/books/{id}', { headers: { Authorization: BASIC_DEMO } }],
      ['GET', '/api/books/{id}', { headers: { Authorization: BASIC_DEMO } }],
      ['PUT', '/api/books/{id}', { headers: json, body: JSON.stringify(book) }],
      ['PATCH', '/api/books/{id}', { headers: json, body: '{"title":"Doc 2"}' }],
      ['DELETE', '/api/books/{id}', { headers: { Authorization: BASIC_DEMO } }],
      ['DELETE', '/api/books/{id}', { headers: { Authorization: BASIC_DEMO } }],
      ['GET', '/api/books/{id}', { headers: { Authorization: BASIC_DEMO } }],
    ];
    const seen = new Set<string>();
    for (const [method, path, init] of calls) {
      const { query = '', ...rest } = init as RequestInit & { query?: string };
      const url = path.replace('{id}', seen.has('POST /api/books 201') ? '1' : 'abc') + query;
      const response = await fetch(`${api.baseUrl}${url}`, { method, ...rest });
      await response.arrayBuffer();
      expect(documented(method, path), `${method} ${url} -> ${response.status}`).toContain(response.status);
      seen.add(`${method} ${path} ${response.status}`);
    }
    expect(seen).toEqual(
      new Set([
        'GET /api/books 401',
        'GET /api/books 200',
        'GET /api/books 400',
        'POST /api/books 201',
        'POST /api/books 409',
        'POST /api/books 400',
        'POST /api/books 415',
        'POST /api/books 413',
        'GET /api/books/{id} 200',
        'PUT /api/books/{id} 200',
        'PATCH /api/books/{id} 200',
        'DELETE /api/books/{id} 204',
        'DELETE /api/books/{id} 404',
        'GET /api/books/{id} 404',
      ]),
    );
  });

  it('documents the list’s 422 past the operator’s cap, and its Link header for pages', async () => {
    const headers = { 'Content-Type': 'application/json', Authorization: BASIC_DEMO };
    for (const n of [1, 2]) {
      const book = { title: 'Big', author: 'List', isbn: `big-${process.pid}-${n}`, publicationYear: 1999 };
      expect(
        (await fetch(`${api.baseUrl}/api/books`, { method: 'POST', headers, body: JSON.stringify(book) })).status,
      ).toBe(201);
    }
    process.env.LIST_MAX_BOOKS = '1'; // fewer than the books listed: the whole list is refused
    try {
      const response = await fetch(`${api.baseUrl}/api/books`, { headers });
      await response.arrayBuffer();
      expect(response.status).toBe(422);
      expect(documented('GET', '/api/books')).toContain(422);
    } finally {
      delete process.env.LIST_MAX_BOOKS;
    }
    expect(document.paths['/api/books']?.get?.responses['200']?.headers).toHaveProperty('Link');
  });
});
