import { allowHeader } from '../api/routes';
import { preflightHeaders } from './cors';
import { empty, methodNotAllowed } from './responses';
import type { HttpResponse } from './types';

/**
 * The answer to a method a resource has no route for: OPTIONS is 204 with `Allow` (RFC 9110 §9.3.7)
 * and, for a listed origin, a CORS preflight's grant; any other method is 405 with the same `Allow`
 * and the contract's body (RFC 9110 §15.5.6). Neither asks for credentials or reads the body, so a
 * body of any type or encoding gets the same answer. A resource the route table does not have
 * (no `Allow` to give) is the gateway's 404.
 */
export const unroutedMethodAnswer = (
  method: string,
  resource: string,
  origin: string | undefined,
  allowedOrigins: readonly string[],
): HttpResponse => {
  const allow = allowHeader(resource);
  if (!allow) return empty(404);
  if (method !== 'OPTIONS') return methodNotAllowed(allow);
  return { statusCode: 204, headers: { Allow: allow, ...preflightHeaders(origin, allowedOrigins, allow) }, body: '' };
};
