import { describe, expect, it } from 'vitest';
import { clientTarget, queryOfEvent, uriMatchesRequest } from '../../shared/auth/request-target';
import type { AuthRequest } from '../../shared/auth/types';

/** The request as the gateway hands it to the authorizer: the path as sent, query values decoded. */
const request = (path: string, query: AuthRequest['query'] = {}): AuthRequest => ({
  method: 'GET',
  path,
  query,
  authorization: undefined,
});

describe('a Digest uri names the whole request target', () => {
  it.each([
    ['/api/books?author=a=b', { author: ['a=b'] }],
    ['/api/books?author=what?junk=1', { author: ['what?junk=1'] }],
    ['/api/books?author=J%C3%B6rg', { author: ['Jörg'] }],
    ['/api/books?author=J%C3%B6rg+Smith', { author: ['Jörg Smith'] }],
    ['/api/books?year=1974&author=x', { author: ['x'], year: ['1974'] }],
    ['/api/books?author=x&author=y', { author: ['y', 'x'] }],
    ['/api/books?constructor=1&__proto__=2&toString=3', { constructor: ['1'], ['__proto__']: ['2'], toString: ['3'] }],
  ])('%s matches its own request', (uri, query) => {
    expect(uriMatchesRequest(uri, request('/api/books', query))).toBe(true);
  });

  it.each([
    ['/api/books?author=a=b', { author: ['a'] }],
    ['/api/books?author=what?junk=1', { author: ['what'] }],
    ['/api/books?author=x', {}],
    ['/api/books', { author: ['x'] }],
    ['/api/books?author=x&author=y', { author: ['y'] }],
    ['/api/books?author=y', { author: ['x', 'y'] }],
    ['/api/books?a=b%3Dc', { 'a=b': ['c'] }],
    ['/api/books?constructor=1', {}],
    ['/api/books?author=x', { constructor: ['1'], author: ['x'] }],
  ])('%s does not match a request for another query', (uri, query) => {
    expect(uriMatchesRequest(uri, request('/api/books', query))).toBe(false);
  });

  it('keeps a query that itself starts with `?`: `/api/books??a=1` names a parameter `?a` (found by fuzz-query)', () => {
    expect(
      uriMatchesRequest(
        '/api/books??T0Q=prototype&=isPrototypeOf',
        request('/api/books', { '?T0Q': ['prototype'], '': ['isPrototypeOf'] }),
      ),
    ).toBe(true);
    expect(uriMatchesRequest('/api/books??a=1', request('/api/books', { a: ['1'] }))).toBe(false);
    expect(uriMatchesRequest('/api/books?a=1', request('/api/books', { '?a': ['1'] }))).toBe(false);
  });

  it('normalises the path alike on both sides: escapes and dot segments', () => {
    expect(uriMatchesRequest('/api/books/%31', request('/api/books/%31'))).toBe(true);
    expect(uriMatchesRequest('/api/books/1', request('/api/books/%31'))).toBe(true);
    expect(uriMatchesRequest('/api/books/%31', request('/api/books/1'))).toBe(true);
    expect(uriMatchesRequest('/api/x/../books/1', request('/api/books/1'))).toBe(true);
    expect(uriMatchesRequest('/api/books/2', request('/api/books/1'))).toBe(false);
    expect(uriMatchesRequest('/api/books/1+', request('/api/books/1'))).toBe(false);
  });

  it('an encoded slash (%2F, %2f) never matches a path separator, on either side', () => {
    expect(uriMatchesRequest('/api%2Fbooks', request('/api/books'))).toBe(false);
    expect(uriMatchesRequest('/api/books%2f1', request('/api/books/1'))).toBe(false);
    expect(uriMatchesRequest('/api/books/1', request('/api/books%2F1'))).toBe(false);
    expect(uriMatchesRequest('/api/books%2F1', request('/api/books%2F1'))).toBe(true);
  });

  it('takes an absolute URI only on this service’s own origin (scheme, host, port), then by its path and query', () => {
    const own = (path: string, query: AuthRequest['query'] = {}) => ({
      ...request(path, query),
      origin: 'https://api.example.com',
    });
    expect(uriMatchesRequest('https://api.example.com/api/books?year=1', own('/api/books', { year: ['1'] }))).toBe(
      true,
    );
    expect(uriMatchesRequest('HTTPS://API.Example.COM:443/api/books', own('/api/books'))).toBe(true);
    for (const other of [
      'https://evil.example/api/books',
      'http://api.example.com/api/books',
      'https://api.example.com:8443/api/books',
      'https://api.example.com.evil.example/api/books',
      'https://user@api.example.com/api/books',
      'https://:secret@api.example.com/api/books',
      'https://[/api/books',
    ]) {
      expect(uriMatchesRequest(other, own('/api/books')), other).toBe(false);
    }
    expect(uriMatchesRequest('https://api.example.com/api/books', request('/api/books')), 'origin unknown').toBe(false);
    // An absolute URI with an empty path names the root (RFC 9110 §4.2.3).
    expect(uriMatchesRequest('https://api.example.com', own('/'))).toBe(true);
    expect(uriMatchesRequest('https://api.example.com', own('/api/books'))).toBe(false);
    expect(
      uriMatchesRequest('http://127.0.0.1:3000/api/books', {
        ...request('/api/books'),
        origin: 'http://127.0.0.1:3000',
      }),
    ).toBe(true);
  });

  it('refuses what is no request target', () => {
    expect(uriMatchesRequest('api/books', request('/api/books'))).toBe(false);
    expect(uriMatchesRequest('/api/books#top', request('/api/books'))).toBe(false);
    expect(uriMatchesRequest('/api/books/%E0%A4%A', request('/api/books/%E0%A4%A'))).toBe(false);
  });
});

describe('the query of an authorizer event', () => {
  it('is the multi-value map when API Gateway gives one', () => {
    const event = {
      multiValueQueryStringParameters: { author: ['x', 'y'] },
      queryStringParameters: { author: 'y' },
    };
    expect(queryOfEvent(event)).toEqual({ author: ['x', 'y'] });
  });

  it('falls back to the single-value map, each value alone, when the multi-value map is absent', () => {
    const query = queryOfEvent({
      multiValueQueryStringParameters: null,
      queryStringParameters: { year: '1974', author: 'x' },
    });
    expect(query).toEqual({ year: ['1974'], author: ['x'] });
    expect(uriMatchesRequest('/api/books?author=x&year=1974', request('/api/books', query))).toBe(true);
    expect(queryOfEvent({ queryStringParameters: { ['__proto__']: '1' } })).toEqual(
      Object.fromEntries([['__proto__', ['1']]]),
    );
  });

  it('is empty when the event has no query at all', () => {
    expect(queryOfEvent({ multiValueQueryStringParameters: null, queryStringParameters: null })).toEqual({});
    expect(queryOfEvent({})).toEqual({});
  });
});

describe('clientTarget: the path the client used, behind a front named by publicBaseUrl', () => {
  const gateway = {
    path: '/prod/api/books/7',
    resource: '/api/books/{id}',
    origin: 'https://abc.execute-api.eu-west-1.amazonaws.com',
  };

  it('is the gateway’s path and origin when no front is named', () => {
    expect(clientTarget(gateway, undefined)).toEqual({ path: gateway.path, origin: gateway.origin });
  });

  it('is the front’s path before the route’s part of the gateway’s path (a CloudFront origin path)', () => {
    expect(clientTarget(gateway, 'https://cdn.example.com')).toEqual({
      path: '/api/books/7',
      origin: 'https://cdn.example.com',
    });
  });

  it('keeps a base path mapping’s base and a trailing slash', () => {
    const mapped = { path: '/api/books/', resource: '/api/books', origin: undefined };
    expect(clientTarget(mapped, 'https://books.example.com/library').path).toBe('/library/api/books/');
  });

  it('is the front’s own path for the root resource, with a slash only where the client sent one', () => {
    const root = { path: '/', resource: '/', origin: undefined };
    expect(clientTarget(root, 'https://cdn.example.com').path).toBe('/');
    expect(clientTarget(root, 'https://books.example.com/library').path).toBe('/library');
    expect(clientTarget({ ...root, path: '/prod/' }, 'https://cdn.example.com').path).toBe('/');
  });

  it('reads a run of trailing slashes, the front’s or the gateway’s, as one', () => {
    const mapped = { path: '/prod/api/books//', resource: '/api/books', origin: undefined };
    expect(clientTarget(mapped, 'https://books.example.com/library//').path).toBe('/library/api/books/');
  });
});
