/**
 * The one route table: the CDK stack creates a function and an API method per entry, and the local
 * server loads the same handler files and matches requests against the same paths.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  /** Logical name: the function's construct id and the log's route field. */
  name: string;
  method: HttpMethod;
  /** API Gateway resource path, with `{param}` placeholders. */
  path: string;
  /** Handler file relative to the project root, exporting `handler`. */
  entry: string;
  /** Guarded by the authorizer (the two reads only when `publicReads` is off). */
  protected: boolean;
  /** What the function does to the books table, for least-privilege grants. */
  access: 'read' | 'write' | 'none';
}

export const ROUTES: readonly Route[] = [
  {
    name: 'ListBooks',
    method: 'GET',
    path: '/api/books',
    entry: 'functions/books/list.ts',
    protected: true,
    access: 'read',
  },
  {
    name: 'CreateBook',
    method: 'POST',
    path: '/api/books',
    entry: 'functions/books/create.ts',
    protected: true,
    access: 'write',
  },
  {
    name: 'GetBook',
    method: 'GET',
    path: '/api/books/{id}',
    entry: 'functions/books/get.ts',
    protected: true,
    access: 'read',
  },
  {
    name: 'ReplaceBook',
    method: 'PUT',
    path: '/api/books/{id}',
    entry: 'functions/books/replace.ts',
    protected: true,
    access: 'write',
  },
  {
    name: 'PatchBook',
    method: 'PATCH',
    path: '/api/books/{id}',
    entry: 'functions/books/patch.ts',
    protected: true,
    access: 'write',
  },
  {
    name: 'DeleteBook',
    method: 'DELETE',
    path: '/api/books/{id}',
    entry: 'functions/books/delete.ts',
    protected: true,
    access: 'write',
  },
  {
    name: 'GetOpenApi',
    method: 'GET',
    path: '/api/openapi.json',
    entry: 'functions/openapi/handler.ts',
    protected: false,
    access: 'none',
  },
];

/** Whether a route needs credentials, given the deployment's `publicReads` option. */
export const requiresAuth = (route: Route, publicReads: boolean): boolean =>
  route.protected && !(publicReads && route.method === 'GET');

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

/** The REQUEST authorizer guarding protected routes, in the stack and in the local server. */
/**
 * Every function's timeout, read by the stack and by the local gateway's Lambda context, so a
 * handler runs against the same deadline on a laptop as on Lambda.
 */
export const FUNCTION_TIMEOUT_SECONDS = 10;

export const AUTHORIZER = { name: 'Authorizer', entry: 'functions/authorizer/handler.ts' } as const;
