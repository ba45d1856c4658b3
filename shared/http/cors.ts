/**
 * Cross-origin resource sharing (Fetch standard), off unless origins are configured. Credentials
 * travel in `Authorization`, so an allowed origin is echoed exactly, never `*` (which browsers refuse
 * with credentials), and every answer that could carry it says `Vary: Origin`.
 */

/** Request headers a browser app may send (its preflight asks for them). */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key'];

/** Response headers a browser app may read besides the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS = ['WWW-Authenticate', 'ETag', 'Location', 'Link', 'Authentication-Info'];

/** Seconds a browser may reuse a preflight's answer. */
const CORS_MAX_AGE_SECONDS = 600;

/** The headers naming an allowed origin on any answer (gateway responses write them statically). */
export const corsOriginHeaders = (origin: string): Record<string, string> => ({
  'Access-Control-Allow-Origin': origin,
  'Access-Control-Allow-Credentials': 'true',
  'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
});

const isListed = (origin: string | undefined, allowed: readonly string[]): origin is string =>
  origin !== undefined && allowed.includes(origin);

/** CORS headers of an actual response: none when CORS is off, `Vary: Origin` and, for a listed origin, the grant. */
export const corsHeaders = (origin: string | undefined, allowed: readonly string[]): Record<string, string> => {
  if (allowed.length === 0) return {};
  return { Vary: 'Origin', ...(isListed(origin, allowed) && corsOriginHeaders(origin)) };
};

/** CORS headers of an OPTIONS answer: for a listed origin, also what its requests may use. */
export const preflightHeaders = (
  origin: string | undefined,
  allowed: readonly string[],
  allowMethods: string,
): Record<string, string> => {
  const headers = corsHeaders(origin, allowed);
  if (!isListed(origin, allowed)) return headers;
  return {
    ...headers,
    'Access-Control-Allow-Methods': allowMethods,
    'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
  };
};
