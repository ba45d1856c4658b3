import { ok } from '../http/responses';
import type { HttpResponse } from '../http/types';

/** Where the API's parts live, relative to its base (the stage, or a custom domain's base path). */
export const API_INDEX_TARGETS = {
  books: '/api/books',
  reference: '/api/docs',
  openapi: '/api/openapi.json',
} as const;

export const API_INDEX_MESSAGE =
  'This is the Book Library API. Its reference is at /api/docs (a page for a browser), its OpenAPI document at /api/openapi.json, and the books are at /api/books (credentials needed).';

/** The API's base URL from the URL a route was called at: that URL without the route's resource path. */
export const apiBase = (url: string, resource: string): string => {
  const path = resource.replace(/\/+$/, '');
  return path && url.endsWith(path) ? url.slice(0, -path.length) : url;
};

/**
 * The answer at `/` and `/api`, the first URLs a person types: 200 JSON naming the reference, the
 * OpenAPI document and the books (what curl shows and a program can follow), and the same two
 * documents as `Link` relations (`service-doc`, `service-desc`; RFC 8631), which HEAD carries too.
 * Not a redirect: a client that follows redirects would land on an HTML page it did not ask for,
 * and curl without -L would show nothing (docs/contract.md#entry-points).
 */
export const apiIndex = (base: string): HttpResponse => {
  const links = Object.fromEntries(
    Object.entries(API_INDEX_TARGETS).map(([name, path]) => [name, `${base}${path}`]),
  ) as Record<keyof typeof API_INDEX_TARGETS, string>;
  return ok(
    { message: API_INDEX_MESSAGE, links },
    { Link: `<${links.reference}>; rel="service-doc", <${links.openapi}>; rel="service-desc"` },
  );
};
