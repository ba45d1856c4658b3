import { ROUTES, type Route } from '../shared/api/routes';

/** What every match gives the proxy event: the resource, the request's method and the path's parameters. */
interface Matched {
  /** The route table's resource path (with `{param}` placeholders): the event's `resource`. */
  resource: string;
  /** The request's own method. */
  method: string;
  pathParameters: Record<string, string>;
}

/** A request for a route: its function answers (HEAD on a GET route runs the GET's). */
export interface RouteMatch extends Matched {
  route: Route;
}

/**
 * A request for a known path by a method that has no route there (OPTIONS included): the
 * UNROUTED_METHODS function answers it, as the stack's OPTIONS and ANY methods do.
 */
export type ResourceMatch = Matched;

const compiled = ROUTES.map((route) => ({
  route,
  names: [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string),
  pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '([^/]+)')}$`),
}));

/** HEAD is answered by the GET route's function (API Gateway: a HEAD method with the GET integration). */
const routeMethodFor = (method: string) => (method === 'HEAD' ? 'GET' : method);

const parametersOf = (names: readonly string[], match: RegExpExecArray): Record<string, string> => {
  const pathParameters: Record<string, string> = {};
  names.forEach((name, i) => {
    pathParameters[name] = safeDecode(match[i + 1] as string);
  });
  return pathParameters;
};

/** API Gateway routes a path with one trailing slash to the resource without it (the event keeps the slash). */
const resourcePathOf = (path: string) => (/[^/]\/$/.test(path) ? path.slice(0, -1) : path);

/** Resolves a request as API Gateway does: exact resource match, `{param}` spans one segment. */
export const matchRoute = (method: string, path: string): RouteMatch | undefined => {
  for (const { route, names, pattern } of compiled) {
    if (route.method !== routeMethodFor(method)) continue;
    const match = pattern.exec(resourcePathOf(path));
    if (!match) continue;
    return { route, resource: route.path, method, pathParameters: parametersOf(names, match) };
  }
  return undefined;
};

/** The resource a path belongs to whatever the method, or undefined for a path the API does not have. */
export const matchResource = (method: string, path: string): ResourceMatch | undefined => {
  for (const { route, names, pattern } of compiled) {
    const match = pattern.exec(resourcePathOf(path));
    if (match) return { resource: route.path, method, pathParameters: parametersOf(names, match) };
  }
  return undefined;
};

/** A malformed escape is passed on as sent, for the handler to reject, rather than failing the request. */
const safeDecode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};
