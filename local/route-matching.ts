import { allowHeader, ROUTES, type Route } from '../shared/api/routes';

export interface RouteMatch {
  route: Route;
  /** The request's own method: the route's, or HEAD on a GET route. */
  method: string;
  pathParameters: Record<string, string>;
}

/** A request for a known path by a method that has no route there: the gateway answers it (OPTIONS 204, else 405). */
export interface ResourceMatch {
  /** The route table's resource path (with `{param}` placeholders). */
  resource: string;
  /** The path's `Allow` value. */
  allow: string;
}

const compiled = ROUTES.map((route) => ({
  route,
  names: [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string),
  pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '([^/]+)')}$`),
}));

/** HEAD is answered by the GET route's function (API Gateway: a HEAD method with the GET integration). */
const routeMethodFor = (method: string) => (method === 'HEAD' ? 'GET' : method);

/** Resolves a request as API Gateway does: exact resource match, `{param}` spans one segment. */
export const matchRoute = (method: string, path: string): RouteMatch | undefined => {
  for (const { route, names, pattern } of compiled) {
    if (route.method !== routeMethodFor(method)) continue;
    const match = pattern.exec(path);
    if (!match) continue;
    const pathParameters: Record<string, string> = {};
    names.forEach((name, i) => {
      pathParameters[name] = safeDecode(match[i + 1] as string);
    });
    return { route, method, pathParameters };
  }
  return undefined;
};

/** The resource a path belongs to whatever the method, or undefined for a path the API does not have. */
export const matchResource = (path: string): ResourceMatch | undefined => {
  const found = compiled.find(({ pattern }) => pattern.test(path));
  return found && { resource: found.route.path, allow: allowHeader(found.route.path) };
};

/** A malformed escape is passed on as sent, for the handler to reject, rather than failing the request. */
const safeDecode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};
