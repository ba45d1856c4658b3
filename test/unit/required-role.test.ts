import type { Request } from '@middy/core';
import { describe, expect, it, vi } from 'vitest';
import { ForbiddenError } from '../../shared/http/errors';
import { requiredRole } from '../../shared/http/required-role';
import type { HttpEvent, HttpResponse } from '../../shared/http/types';

/** The middleware's decision for a request to `method resource` with this authorizer context. */
const decide = (method: string, resource: string, authorizer?: Record<string, unknown>) => {
  const event = { httpMethod: method, resource, requestContext: { authorizer } } as unknown as HttpEvent;
  try {
    requiredRole().before?.({ event } as Request<HttpEvent, HttpResponse>);
    return 'let through';
  } catch (error) {
    expect(error).toBeInstanceOf(ForbiddenError);
    return (error as ForbiddenError).statusCode;
  }
};

describe('the role a route needs', () => {
  it.each([
    ['GET', '/api/books', 'reader', 'let through'],
    ['HEAD', '/api/books/{id}', 'reader', 'let through'],
    ['POST', '/api/books', 'reader', 403],
    ['POST', '/api/books', 'editor', 'let through'],
    ['PUT', '/api/books/{id}', 'reader', 403],
    ['PATCH', '/api/books/{id}', 'editor', 'let through'],
    ['DELETE', '/api/books/{id}', 'editor', 403],
    ['DELETE', '/api/books/{id}', 'admin', 'let through'],
  ])('%s %s as %s: %s', (method, resource, role, expected) => {
    expect(decide(method, resource, { user: 'u', role })).toBe(expected);
  });

  it('grants nothing by default: no role, an unknown role, or a request of no route is refused', () => {
    expect(decide('GET', '/api/books', { user: 'u' })).toBe(403);
    expect(decide('GET', '/api/books', { user: 'u', role: 'owner' })).toBe(403);
    expect(decide('GET', '/api/elsewhere', { user: 'u', role: 'editor' })).toBe(403);
    expect(decide('GET', '/api/elsewhere', { user: 'u', role: 'admin' })).toBe('let through');
  });

  it('lets a request without an authenticated user through on a public route only', () => {
    expect(decide('GET', '/api/openapi.json', {})).toBe('let through');
    expect(decide('GET', '/api/docs')).toBe('let through');
    expect(decide('OPTIONS', '/api/books')).toBe('let through'); // the unrouted-methods function
  });

  it.each([
    ['GET', '/api/books'],
    ['HEAD', '/api/books/{id}'],
    ['POST', '/api/books'],
    ['DELETE', '/api/books/{id}'],
  ])('refuses %s %s without an authenticated user: the gateway alone does not protect it', (method, resource) => {
    expect(decide(method, resource)).toBe(403);
    expect(decide(method, resource, {})).toBe(403);
  });

  it('with PUBLIC_READS, lets the reads through without a user, never a write', () => {
    vi.stubEnv('PUBLIC_READS', 'true');
    try {
      expect(decide('GET', '/api/books')).toBe('let through');
      expect(decide('HEAD', '/api/books/{id}')).toBe('let through');
      expect(decide('POST', '/api/books')).toBe(403);
      expect(decide('PATCH', '/api/books/{id}')).toBe(403);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
