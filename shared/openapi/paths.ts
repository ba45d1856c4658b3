import type { JsonSchema } from '@valibot/to-json-schema';
import { ROUTES, type Route, type RouteDefinition, requiresAuth } from '../api/routes';
import { BookIdSchema, BookQuerySchema } from '../books/schemas';
import { JSON_MEDIA_TYPE } from '../http/json-body';
import { HEADER_PARAMETERS } from './headers';
import { jsonSchema } from './json-schema';
import { OPERATIONS } from './operations';
import { ref, response } from './references';
import type { OpenApiDocument, Operation } from './types';
import { serviceUnavailable } from './unavailable';

/**
 * The document's paths: one operation per route of the route table, its parameters from the valibot
 * schemas the handlers validate with, its responses from OPERATIONS plus the statuses every route
 * shares; HEAD beside every GET.
 */
const pathParameters = (route: Route) =>
  [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: 'Book id: a positive integer no larger than 2^53-1',
    schema: name === 'id' ? jsonSchema(BookIdSchema, 'input') : { type: 'string' },
  }));

const queryParameters = () => {
  const schema = jsonSchema(BookQuerySchema, 'input') as {
    properties: Record<string, JsonSchema & { description?: string }>;
  };
  return Object.entries(schema.properties).map(([name, { description, ...property }]) => ({
    name,
    in: 'query',
    required: false,
    ...(description && { description }),
    schema: property,
  }));
};

/** The body's schema under each media type it may come in (application/json first). */
const bodyContent = (schema: string, alsoAccept: readonly string[]) =>
  Object.fromEntries([JSON_MEDIA_TYPE, ...alsoAccept].map((type) => [type, { schema: ref(schema) }]));

/** Every authenticated user holds at least this role: an operation needing it has no 403. */
const LOWEST_ROLE = 'reader';

/** What the operation's description says of its role (reader < editor < admin). */
const roleNote = (role: string) =>
  role === LOWEST_ROLE
    ? '. Needs the role reader, which every role includes'
    : `. Needs the role ${role}${role === 'admin' ? '' : ' or admin'}: a user with a lower role gets 403`;

const operation = (route: Route, publicReads: boolean): Operation => {
  const spec = OPERATIONS[route.name];
  const guarded = requiresAuth(route, publicReads);
  const role = guarded ? (route as RouteDefinition).role : undefined;
  const unavailable = [...(spec.unavailable ?? []), ...(guarded ? (['authentication'] as const) : [])];
  const parameters = [
    ...pathParameters(route),
    ...(spec.query ? queryParameters() : []),
    ...(spec.headers ?? []).map((name) => HEADER_PARAMETERS[name]),
  ];
  return {
    operationId: route.name.charAt(0).toLowerCase() + route.name.slice(1),
    summary: spec.summary,
    description: role ? `${spec.description}${roleNote(role)}` : spec.description,
    tags: [spec.tag ?? 'books'],
    security: guarded ? [{ basic: [] }, { digest: [] }] : [],
    ...(role && { 'x-required-role': role }),
    ...(parameters.length > 0 && { parameters }),
    ...(spec.body && { requestBody: { required: true, content: bodyContent(spec.body, spec.alsoAccept ?? []) } }),
    responses: {
      '400': response('MalformedHost'),
      ...spec.responses,
      ...(guarded && { '401': response('Unauthorized') }),
      ...(role && role !== LOWEST_ROLE && { '403': response('Forbidden') }),
      ...(unavailable.length > 0 && { '503': serviceUnavailable(unavailable) }),
      '429': response('TooManyRequests'),
      '500': response('InternalError'),
    },
  };
};

/** HEAD of a GET route: its statuses and headers, never a body (RFC 9110 §9.3.2). */
const headOperation = (get: Operation): Operation => ({
  ...get,
  operationId: `${get.operationId}Head`,
  summary: `Headers only: ${get.summary.charAt(0).toLowerCase()}${get.summary.slice(1)}`,
  description: 'The GET operation’s status and headers (Content-Length included) without its body',
  responses: Object.fromEntries(
    Object.entries(get.responses).map(([status, answer]) => [
      status,
      '$ref' in answer
        ? { description: 'As for GET, without the body' }
        : { description: answer.description, ...(answer.headers ? { headers: answer.headers } : {}) },
    ]),
  ),
});

/** Every route's operation, `publicReads` deciding which carry security requirements. */
export const buildPaths = (publicReads: boolean): OpenApiDocument['paths'] => {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of ROUTES) {
    paths[route.path] ??= {};
    const pathItem = paths[route.path] as Record<string, Operation>;
    pathItem[route.method.toLowerCase()] = operation(route, publicReads);
    if (route.method === 'GET') pathItem.head = headOperation(pathItem.get as Operation);
  }
  return paths;
};
