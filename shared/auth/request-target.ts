import type { AuthRequest } from './types';

/** One query parameter as the gateway hands it on: name and value, both decoded. */
type QueryPair = readonly [name: string, value: string];

/**
 * A path as its decoded segments, in one comparable string. Dot segments are resolved as any URL
 * parser (and so the client's stack) does, then each segment's escapes decoded on its own, so
 * `/api/books/%31` and `/api/books/1` name the same resource while `/api%2Fbooks` (one segment
 * holding a slash) never names `/api/books`.
 */
const decodePath = (path: string): string | undefined => {
  try {
    return JSON.stringify(new URL(path, 'http://host').pathname.split('/').map(decodeURIComponent));
  } catch {
    return undefined;
  }
};

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The request target of an absolute-form `uri` (RFC 9112 §3.2.2) when its scheme, host and port
 * are this service's own origin; undefined otherwise, or when the service's origin is unknown.
 */
const targetOnOwnOrigin = (uri: string, origin: string | undefined): string | undefined => {
  if (origin === undefined) return undefined;
  let named: URL;
  let own: URL;
  try {
    named = new URL(uri);
    own = new URL(origin);
  } catch {
    return undefined;
  }
  if (named.username !== '' || named.password !== '' || named.origin !== own.origin) return undefined;
  return uri.replace(/^[^:]+:\/\/[^/?#]*/, '') || '/';
};

/**
 * The query as the gateway decodes it (URLSearchParams: `+` is a space, the first `=` splits name
 * from value), as an ordered list of pairs rather than a map, so that no client-chosen name can
 * collide with an object's own machinery (`constructor`, `__proto__`) and repeats are kept.
 */
const queryPairsOfUri = (rawQuery: string): QueryPair[] =>
  // URLSearchParams drops one leading `?` of its input: the `?` given here is that one, so a query
  // that itself starts with `?` (`/api/books??a=1`, a parameter named `?a`) keeps it, as the gateway does.
  [...new URLSearchParams(`?${rawQuery}`)];

const queryPairsOfRequest = (query: AuthRequest['query']): QueryPair[] =>
  Object.entries(query).flatMap(([name, values]) => (values ?? []).map((value) => [name, value] as const));

type QueryMap<V> = Readonly<Record<string, V | undefined>> | null | undefined;

/**
 * The query of an authorizer's event, every value of each parameter. A REST API fills
 * `multiValueQueryStringParameters`; where only `queryStringParameters` is given (a hand-made
 * event, another front end), each of its values stands alone rather than the query being lost,
 * which would fail every Digest `uri` that carries one. Entries are copied as own properties, so a
 * parameter named `__proto__` stays a parameter.
 */
export const queryOfEvent = (event: {
  multiValueQueryStringParameters?: QueryMap<string[]>;
  queryStringParameters?: QueryMap<string>;
}): AuthRequest['query'] => {
  if (event.multiValueQueryStringParameters) return event.multiValueQueryStringParameters;
  const single = Object.entries(event.queryStringParameters ?? {});
  return Object.fromEntries(single.map(([name, value]) => [name, value === undefined ? undefined : [value]]));
};

/** A multiset of pairs as one comparable string (JSON keeps `=` and `&` inside names and values apart). */
const multisetKey = (pairs: QueryPair[]) =>
  pairs
    .map((pair) => JSON.stringify(pair))
    .sort()
    .join('\n');

/**
 * Whether a Digest `uri` names the request being made (RFC 7616 §3.4.6): the whole request target,
 * path and full query, normalised the same way on both sides. The gateway hands the authorizer a
 * path and decoded query values, so both sides are compared decoded (path segment by segment), the
 * query as a multiset; an absolute URI must name this service's origin, then its path and query count.
 */
export const uriMatchesRequest = (uri: string, request: AuthRequest): boolean => {
  const target = ABSOLUTE.test(uri) ? targetOnOwnOrigin(uri, request.origin) : uri;
  if (target === undefined || !target.startsWith('/') || target.includes('#')) return false;
  const questionMark = target.indexOf('?');
  const rawPath = questionMark < 0 ? target : target.slice(0, questionMark);
  const rawQuery = questionMark < 0 ? '' : target.slice(questionMark + 1);
  const path = decodePath(rawPath);
  if (path === undefined || path !== decodePath(request.path)) return false;
  return multisetKey(queryPairsOfUri(rawQuery)) === multisetKey(queryPairsOfRequest(request.query));
};

/**
 * The route's part of the path the gateway saw: as many segments as the route's resource has (a path
 * parameter is one segment), so whatever stage or base path comes before is left to PUBLIC_BASE_URL.
 */
export const routePath = (path: string, resource: string): string => {
  const segments = resource.split('/').filter((segment) => segment !== '').length;
  return segments === 0 ? '' : `/${path.split('/').slice(-segments).join('/')}`;
};

/** Where the client addressed the request: the gateway's path, or the front's when PUBLIC_BASE_URL names one. */
export interface ClientTarget {
  path: string;
  /** The origin an absolute-form Digest `uri` must name. */
  origin: string | undefined;
}

/**
 * The path the client used, which its Digest `uri` names. Without a front it is the gateway's
 * `requestContext.path` (stage or custom-domain base path included). Behind a front that rewrites
 * the path (a CloudFront origin path, a base path mapping), it is the front's path (publicBaseUrl's)
 * followed by the route's part of the gateway's path, as the handlers build links.
 */
export const clientTarget = (
  gateway: { path: string; resource: string; origin: string | undefined },
  publicBaseUrl: string | undefined,
): ClientTarget => {
  if (publicBaseUrl === undefined) return { path: gateway.path, origin: gateway.origin };
  const front = new URL(publicBaseUrl);
  const trailingSlash = gateway.path.length > 1 && gateway.path.endsWith('/') ? '/' : '';
  const route = routePath(gateway.path.replace(/\/+$/, ''), gateway.resource);
  return { path: `${front.pathname.replace(/\/+$/, '')}${route}${trailingSlash}` || '/', origin: front.origin };
};
