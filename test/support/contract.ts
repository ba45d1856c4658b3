import type { APIGatewayProxyResult } from 'aws-lambda';
import { expect } from 'vitest';

/**
 * What docs/contract.md allows each route to answer, status by status, with the body shape each
 * status must have. Anything else (a 5xx above all) is a contract violation.
 */
export const ALLOWED_STATUSES: Record<string, readonly number[]> = {
  ListBooks: [200, 400],
  GetBook: [200, 304, 400, 404],
  CreateBook: [201, 400, 409, 413, 415, 422],
  ReplaceBook: [200, 400, 404, 409, 412, 413, 415, 428],
  PatchBook: [200, 400, 404, 409, 412, 413, 415, 428],
  DeleteBook: [204, 400, 404, 412, 428],
  GetOpenApi: [200],
  GetAsyncApi: [200],
  GetApiReference: [200, 301],
  GetApiReferenceAsset: [200, 404],
  GetApiIndex: [200],
  GetRootIndex: [200],
};

/** Routes whose 200 is a page or a file for the browser, not JSON. */
const BROWSER_ROUTES = new Set(['GetApiReference', 'GetApiReferenceAsset']);

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const STRONG_TAG = /^"[\x21\x23-\x7e]*"$/;

const expectBook = (book: unknown) =>
  expect(book).toEqual({
    id: expect.any(Number),
    title: expect.any(String),
    author: expect.any(String),
    isbn: expect.any(String),
    publicationYear: expect.any(Number),
    createdAt: expect.stringMatching(ISO_MS),
    updatedAt: expect.stringMatching(ISO_MS),
  });

/** Fails the test unless `result` is an answer the contract allows for `route`. */
export const expectAllowedResponse = (route: string, result: APIGatewayProxyResult) => {
  expect(ALLOWED_STATUSES[route], `status ${result.statusCode} of ${route}: ${result.body}`).toContain(
    result.statusCode,
  );
  if (BROWSER_ROUTES.has(route) && result.statusCode === 200) {
    expect(result.headers?.['Content-Type']).toMatch(
      /^(text\/html|text\/css|application\/javascript|text\/javascript)/,
    );
    expect(result.body.length).toBeGreaterThan(0);
    return;
  }
  const body = result.body ? JSON.parse(result.body) : undefined;
  switch (result.statusCode) {
    case 200:
      if (route === 'GetApiIndex' || route === 'GetRootIndex') {
        expect(Object.keys(body.links)).toEqual(['books', 'reference', 'openapi']);
        expect(body.links.reference).toMatch(/\/api\/docs$/);
        expect(result.headers?.Link).toContain('rel="service-doc"');
      } else if (route === 'GetAsyncApi') {
        expect(body).toMatchObject({ asyncapi: '3.0.0', channels: expect.any(Object) });
      } else if (route === 'GetOpenApi') {
        expect(body).toMatchObject({ openapi: '3.1.0', paths: expect.any(Object) });
        for (const server of body.servers ?? []) expect(() => new URL(server.url)).not.toThrow();
      } else if (route === 'ListBooks') {
        expect(Array.isArray(body)).toBe(true);
        for (const book of body) expectBook(book);
      } else {
        expectBook(body);
        expect(result.headers?.ETag).toMatch(STRONG_TAG);
      }
      break;
    case 201:
      expectBook(body);
      expect(result.headers?.Location).toMatch(new RegExp(`/api/books/${body.id}$`));
      expect(result.headers?.ETag).toMatch(STRONG_TAG);
      break;
    case 301: // /api/docs/ to the page, whose relative links need the address without the slash
      expect(result.headers?.Location).toBe('../docs');
      expect(result.body).toBe('');
      break;
    case 304:
      expect(result.body).toBe('');
      expect(result.headers?.ETag).toMatch(STRONG_TAG);
      break;
    case 204:
    case 404:
    case 409:
      expect(result.body).toBe('');
      break;
    case 400:
      expect(body).toEqual({ timestamp: expect.stringMatching(ISO_MS), status: 400, errors: expect.any(Object) });
      expect(Object.keys(body.errors).length).toBeGreaterThan(0);
      for (const message of Object.values(body.errors)) expect(message).toEqual(expect.any(String));
      break;
    default:
      if (result.statusCode === 412) expect(result.headers?.ETag).toMatch(STRONG_TAG);
      expect(body).toEqual({
        timestamp: expect.stringMatching(ISO_MS),
        status: result.statusCode,
        message: expect.any(String),
      });
  }
};
