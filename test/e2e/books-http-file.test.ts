import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHttpFile, runHttpFile } from '../support/http-file';
import { startLocalApi } from '../support/local-api';
import { runTool } from '../support/tool-process';

/** examples/books.http run as an editor runs it, after `npm run seed`, against the local server on DynamoDB Local. */
describe('examples/books.http', () => {
  const file = parseHttpFile(readFileSync('examples/books.http', 'utf8'));
  let api: Awaited<ReturnType<typeof startLocalApi>>;

  beforeAll(async () => {
    api = await startLocalApi();
    const seeded = await runTool('seed', ['--url', api.baseUrl]);
    expect(seeded.code, seeded.stderr).toBe(0);
  }, 60_000);
  afterAll(() => api?.close());

  it('covers every route, Basic and Digest, filters, a page walk and the error statuses, each request with an expected status', () => {
    expect(file.requests.length).toBeGreaterThanOrEqual(20);
    for (const request of file.requests) expect(request.expect, `line ${request.line}: ${request.title}`).toBeDefined();
    const routes = new Set(
      file.requests.map((r) => `${r.method} ${r.url.replace(/\?.*$/, '').replace(/\{\{created[^}]*\}\}|abc/, '{id}')}`),
    );
    for (const route of [
      'GET {{baseUrl}}/api/books',
      'POST {{baseUrl}}/api/books',
      'GET {{baseUrl}}/api/books/{id}',
      'PUT {{baseUrl}}/api/books/{id}',
      'PATCH {{baseUrl}}/api/books/{id}',
      'DELETE {{baseUrl}}/api/books/{id}',
      'GET {{baseUrl}}/api/openapi.json',
      'GET {{baseUrl}}/api/docs',
    ]) {
      expect(routes, route).toContain(route);
    }
    const statuses = new Set(file.requests.map((r) => r.expect));
    for (const status of [200, 201, 204, 400, 401, 404, 409, 415]) expect(statuses, String(status)).toContain(status);
    const authorizations = file.requests.flatMap((r) =>
      r.headers.filter(([n]) => n === 'Authorization').map(([, v]) => v),
    );
    expect(authorizations.some((value) => value.startsWith('Basic '))).toBe(true);
    expect(authorizations.some((value) => value.startsWith('Digest '))).toBe(true);
    expect(file.requests.some((r) => r.url.includes('cursor='))).toBe(true);
    expect(file.requests.some((r) => r.url.includes('author=') && r.url.includes('year='))).toBe(true);
  });

  it('gets the status each request expects, run top to bottom against a freshly seeded local server', async () => {
    const results = await runHttpFile(file, { baseUrl: api.baseUrl });
    const mismatches = results
      .filter(({ request, status }) => request.expect !== status)
      .map(
        ({ request, status, text }) =>
          `line ${request.line} ${request.title}: expected ${request.expect}, got ${status} ${text}`,
      );
    expect(mismatches).toEqual([]);

    // After the seed, every filter finds something.
    for (const { request, status, text } of results) {
      if (request.method === 'GET' && status === 200 && /[?&](author|year)=/.test(request.url)) {
        expect((JSON.parse(text) as unknown[]).length, `line ${request.line} ${request.title}`).toBeGreaterThan(0);
      }
    }

    // The page walk's second request is the URL page 1's Link header names after the seed.
    const firstPage = results.find(({ request }) => request.name === 'firstPage');
    const next = /^<([^>]+)>; rel="next"$/.exec(firstPage?.headers.get('link') ?? '')?.[1];
    const secondPage = results[results.indexOf(firstPage as (typeof results)[number]) + 1];
    expect(next).toBe(secondPage?.url);
    // The Digest requests really went through the challenge (a Basic header would not be here).
    const digestRead = results.find(({ request }) => request.headers.some(([, v]) => v.startsWith('Digest ')));
    expect(digestRead?.status).toBe(200);
  }, 60_000);
});
