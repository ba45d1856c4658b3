import type { MiddlewareObj } from '@middy/core';
import { routeFor } from '../api/routes';
import { grants, isRole, type Role } from '../auth/roles';
import { ForbiddenError } from './errors';
import type { HttpEvent, HttpResponse } from './types';

/**
 * The authenticated user's role as the authorizer passed it in its context; undefined when no
 * authorizer ran (a public route), and no role at all when the context names none.
 */
export const authorizedRole = (event: HttpEvent): { user: string; role: Role | undefined } | undefined => {
  const context = event.requestContext?.authorizer;
  if (typeof context?.user !== 'string') return undefined;
  return { user: context.user, role: isRole(context.role) ? context.role : undefined };
};

/** The user the authorizer let in, whom a write is recorded as made by; undefined on a public route. */
export const authenticatedUser = (event: HttpEvent): string | undefined => authorizedRole(event)?.user;

/**
 * Refuses with 403 a request whose user holds less than the role its route needs, before the body
 * is read. The authorizer decides who the user is and allows the whole API (its decision is not
 * cached per route); the route's function decides what that user may do here, so the refusal is the
 * contract's error body rather than the gateway's 401 and challenge. A context without a valid role,
 * or a request of no known route, is refused: nothing is granted by default here.
 */
export const requiredRole = (): MiddlewareObj<HttpEvent, HttpResponse> => ({
  before: (request) => {
    const authorized = authorizedRole(request.event);
    if (!authorized) return; // no authorizer ran: the route is public in this deployment
    const needed: Role = routeFor(request.event.httpMethod, request.event.resource)?.role ?? 'admin';
    if (!authorized.role || !grants(authorized.role, needed)) throw new ForbiddenError(needed);
  },
});
