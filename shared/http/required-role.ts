import type { MiddlewareObj } from '@middy/core';
import { requiresAuth, routeFor } from '../api/routes';
import { grants, isRole, type Role } from '../auth/roles';
import { readSetting } from '../config';
import { ForbiddenError } from './errors';
import type { HttpEvent, HttpResponse } from './types';

/**
 * The authenticated user's role as the authorizer passed it in its context; undefined when no
 * authorizer ran, and no role at all when the context names none.
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
 * or a request of no known route, is refused: nothing is granted by default here. Nor does the
 * gateway's configuration alone protect a route: one the route table does not declare public
 * (`requiresAuth`, with PUBLIC_READS) is refused without an authenticated user.
 */
export const requiredRole = (): MiddlewareObj<HttpEvent, HttpResponse> => ({
  before: (request) => {
    const { httpMethod, resource } = request.event;
    const route = routeFor(httpMethod, resource);
    const needed: Role = route?.role ?? 'admin';
    const authorized = authorizedRole(request.event);
    if (!authorized) {
      // No route: the unrouted-methods function (OPTIONS, 405), public like its answers.
      if (route && requiresAuth(route, readSetting('publicReads'))) throw new ForbiddenError(needed);
      return;
    }
    if (!authorized.role || !grants(authorized.role, needed)) throw new ForbiddenError(needed);
  },
});
