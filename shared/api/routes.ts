import type { Role } from '../auth/roles';
import type { BookStoreUse } from '../books/ports';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Swagger UI's browser bundle and styles, served by the API itself (no CDN) at /api/docs/<file name>. */
export const API_REFERENCE_ASSETS = [
  'node_modules/swagger-ui-dist/swagger-ui-bundle.js',
  'node_modules/swagger-ui-dist/swagger-ui.css',
] as const;

export interface RouteDefinition {
  /** Logical name: the function's construct id and the log's route field. */
  readonly name: string;
  readonly method: HttpMethod;
  /** API Gateway resource path, with `{param}` placeholders. */
  readonly path: string;
  /**
   * Handler file relative to the project root, exporting `handler`: the stack bundles it, the local
   * server imports it (test/static/route-table.test.ts checks that each one does).
   */
  readonly entry: `functions/${string}.ts`;
  /** Guarded by the authorizer (the two reads only when `publicReads` is off). */
  readonly protected: boolean;
  /**
   * The role an authenticated user needs (protected routes): a user whose role is short gets 403
   * from the route's function (shared/http/required-role.ts), after the authorizer let it through.
   */
  readonly role?: Role;
  /**
   * The book store use case the function runs, which alone decides its grant on the books table
   * (shared/store/table-access.ts); `none` for a function that reaches no table.
   */
  readonly access: BookStoreUse | 'none';
  /** Files (relative to the project root) the function reads at run time, shipped beside its bundle. */
  readonly assets?: readonly string[];
  /**
   * The handler streams its response (Lambda response streaming): the stack gives its integration
   * the STREAM transfer mode, invoked through the response-streaming URI.
   */
  readonly streaming?: boolean;
  /**
   * The same route answered buffered, for hosts that cannot relay a streamed response: the
   * samLocal synth (`sam local start-api`) builds this handler file instead of `entry`, behind an
   * ordinary proxy integration. Same parsing, use case and contract; its limits are in docs/sam.md.
   */
  readonly bufferedEntry?: `functions/${string}.ts`;
  /** The function's timeout when not FUNCTION_TIMEOUT_SECONDS (a streamed whole list runs longer). */
  readonly timeoutSeconds?: number;
}

/**
 * The one route table, the API's contract in code: the CDK stack creates a function and an API
 * method per entry, the local server loads the same handler files and matches requests against the
 * same paths, and the OpenAPI document and the access log are keyed by the same route names.
 */
export const ROUTES = [
  {
    name: 'ListBooks',
    method: 'GET',
    path: '/api/books',
    entry: 'functions/books/list.ts',
    protected: true,
    role: 'reader',
    access: 'list',
    streaming: true,
    bufferedEntry: 'functions/books/list-buffered.ts',
    timeoutSeconds: 300,
  },
  {
    name: 'CreateBook',
    method: 'POST',
    path: '/api/books',
    entry: 'functions/books/create.ts',
    protected: true,
    role: 'editor',
    access: 'create',
  },
  {
    name: 'GetBook',
    method: 'GET',
    path: '/api/books/{id}',
    entry: 'functions/books/get.ts',
    protected: true,
    role: 'reader',
    access: 'read',
  },
  {
    name: 'ReplaceBook',
    method: 'PUT',
    path: '/api/books/{id}',
    entry: 'functions/books/replace.ts',
    protected: true,
    role: 'editor',
    access: 'update',
  },
  {
    name: 'PatchBook',
    method: 'PATCH',
    path: '/api/books/{id}',
    entry: 'functions/books/patch.ts',
    protected: true,
    role: 'editor',
    access: 'update',
  },
  {
    name: 'DeleteBook',
    method: 'DELETE',
    path: '/api/books/{id}',
    entry: 'functions/books/delete.ts',
    protected: true,
    role: 'admin',
    access: 'delete',
  },
  {
    name: 'GetOpenApi',
    method: 'GET',
    path: '/api/openapi.json',
    entry: 'functions/openapi/handler.ts',
    protected: false,
    access: 'none',
  },
  {
    name: 'GetAsyncApi',
    method: 'GET',
    path: '/api/asyncapi.json',
    entry: 'functions/asyncapi/handler.ts',
    protected: false,
    access: 'none',
  },
  {
    name: 'GetApiReference',
    method: 'GET',
    path: '/api/docs',
    entry: 'functions/api-reference/handler.ts',
    protected: false,
    access: 'none',
  },
  {
    name: 'GetApiReferenceAsset',
    method: 'GET',
    path: '/api/docs/{asset}',
    entry: 'functions/api-reference/handler.ts',
    protected: false,
    access: 'none',
    assets: API_REFERENCE_ASSETS,
  },
  {
    name: 'GetApiIndex',
    method: 'GET',
    path: '/api',
    entry: 'functions/api-index/handler.ts',
    protected: false,
    access: 'none',
  },
  {
    name: 'GetRootIndex',
    method: 'GET',
    path: '/',
    entry: 'functions/api-index/handler.ts',
    protected: false,
    access: 'none',
  },
] as const satisfies readonly RouteDefinition[];

export type Route = (typeof ROUTES)[number];

/** Every route's name; maps keyed by it (OpenAPI operations, log fields) must cover each one. */
export type RouteName = Route['name'];

/**
 * The handler file a deployment builds for a route, and whether it streams: `entry` as the route
 * names it, or its `bufferedEntry` where responses must be buffered (`sam local`).
 */
export const handlerOf = (route: RouteDefinition, buffered: boolean): { entry: string; streaming: boolean } =>
  buffered && route.bufferedEntry
    ? { entry: route.bufferedEntry, streaming: false }
    : { entry: route.entry, streaming: route.streaming ?? false };

/**
 * Methods the API answers on a path without a route of their own: HEAD wherever GET is (RFC 9110
 * §9.3.2, the GET route's function answers it), and OPTIONS everywhere (answered by UNROUTED_METHODS).
 */
export type GatewayMethod = 'HEAD' | 'OPTIONS';

/** Every resource path of the route table, each once, in the table's order. */
export const RESOURCE_PATHS: readonly string[] = [...new Set(ROUTES.map((route) => route.path))];

/** The order `Allow` lists methods in. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * The methods a path takes, for `Allow` on its 405 and OPTIONS answers; empty for a path that is not
 * a resource of the route table.
 */
const allowedMethods = (path: string): readonly (HttpMethod | GatewayMethod)[] => {
  const routed = new Set<string>(ROUTES.filter((route) => route.path === path).map((route) => route.method));
  if (routed.size === 0) return [];
  if (routed.has('GET')) routed.add('HEAD');
  routed.add('OPTIONS');
  return METHOD_ORDER.filter((method) => routed.has(method));
};

/** The `Allow` field's value for a resource path. */
export const allowHeader = (path: string): string => allowedMethods(path).join(', ');

/**
 * The route a function answers for a request, by the gateway's resource and method (HEAD runs its
 * GET route's function): undefined for a method and resource of no route.
 */
export const routeFor = (method: string | undefined, resource: string | undefined): RouteDefinition | undefined => {
  const routed = method === 'HEAD' ? 'GET' : method;
  return ROUTES.find((route) => route.method === routed && route.path === resource);
};

/** Whether a route needs credentials, given the deployment's `publicReads` option. */
export const requiresAuth = (route: RouteDefinition, publicReads: boolean): boolean =>
  route.protected && !(publicReads && route.method === 'GET');

/**
 * The function behind every resource's OPTIONS and its methods without a route (the stack's OPTIONS
 * and ANY methods, the local server's and `sam local`'s too): 204 with `Allow` (and a preflight's
 * answer), or 405. Public, like the answers it gives: no credentials are asked for either. Its
 * construct keeps the name it was deployed under: a new one would replace the function's log group.
 */
export const UNROUTED_METHODS = { name: 'ResourceMethods', entry: 'functions/unrouted-methods/handler.ts' } as const;

/** The methods API Gateway's ANY stands for (and the SAM CLI expands it to). */
const ANY_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Of ANY_METHODS, those a path has no route for (OPTIONS included), each answered by
 * UNROUTED_METHODS: where ANY cannot be used beside the routes' own methods (`sam local`).
 */
export const unroutedMethods = (path: string): readonly string[] => {
  const routed = new Set<string>(allowedMethods(path));
  routed.delete('OPTIONS');
  return ANY_METHODS.filter((method) => !routed.has(method));
};

/** The REQUEST authorizer guarding protected routes, in the stack and in the local server. */
export const AUTHORIZER = { name: 'Authorizer', entry: 'functions/authorizer/handler.ts' } as const;

/**
 * Every function's timeout, read by the stack and by the local gateway's Lambda context, so a
 * handler runs against the same deadline on a laptop as on Lambda.
 */
export const FUNCTION_TIMEOUT_SECONDS = 10;

/** A route's function timeout in milliseconds, for the stack and the local gateway's Lambda context. */
export const functionTimeoutMs = (route: RouteDefinition): number =>
  (route.timeoutSeconds ?? FUNCTION_TIMEOUT_SECONDS) * 1_000;
