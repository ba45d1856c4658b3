/**
 * Headers every answer of the API carries, from a function, from the local server or from API
 * Gateway itself (the stack writes the same values into its gateway and MOCK responses).
 *
 * Caching (docs/contract.md#caching): an answer about books is only ever for the client that
 * asked. A read (GET, HEAD) that carries an `ETag` (one book, and its 304) is `private, no-cache`: a browser may
 * keep it, but must revalidate it with `If-None-Match` before each use, and no shared cache stores
 * it. Everything else (lists, the answers to writes, errors, 401s) is `no-store`. An answer that set its own
 * `Cache-Control` (the public reference page and its files) keeps it.
 */

export const CACHE_CONTROL = {
  revalidate: 'private, no-cache',
  noStore: 'no-store',
} as const;

/** JSON and text are never sniffed into something a browser would run. */
const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' } as const;

/** The headers of every answer API Gateway or the local server gives without a function (errors, 204, 405). */
export const GATEWAY_HEADERS = { 'Cache-Control': CACHE_CONTROL.noStore, ...NOSNIFF } as const;

const hasHeader = (headers: Record<string, unknown>, name: string) =>
  Object.keys(headers).some((key) => key.toLowerCase() === name.toLowerCase());

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/** `Cache-Control` for a function's answer: by the request's method, the status and whether it carries a validator. */
const cacheControlFor = (method: string, statusCode: number, headers: Record<string, unknown>): string =>
  isRead(method) && (statusCode === 200 || statusCode === 304) && hasHeader(headers, 'etag')
    ? CACHE_CONTROL.revalidate
    : CACHE_CONTROL.noStore;

/** The standard headers added to an answer's own (its own `Cache-Control`, if any, wins). */
export const withStandardHeaders = (
  method: string,
  statusCode: number,
  headers: Record<string, string | number | boolean> = {},
): Record<string, string | number | boolean> => ({
  ...(!hasHeader(headers, 'cache-control') && { 'Cache-Control': cacheControlFor(method, statusCode, headers) }),
  ...NOSNIFF,
  ...headers,
});
