import { ROUTES, type Route } from '../shared/api/routes';

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

const compiled = ROUTES.map((route) => ({
  route,
  names: [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string),
  pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '([^/]+)')}$`),
}));

/** Resolves a request as API Gateway does: exact resource match, `{param}` spans one segment. */
export const matchRoute = (method: string, path: string): RouteMatch | undefined => {
  for (const { route, names, pattern } of compiled) {
    if (route.method !== method) continue;
    const match = pattern.exec(path);
    if (!match) continue;
    const pathParameters: Record<string, string> = {};
    names.forEach((name, i) => {
      pathParameters[name] = safeDecode(match[i + 1] as string);
    });
    return { route, pathParameters };
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
