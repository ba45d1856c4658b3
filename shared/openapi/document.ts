import { type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ROUTES, type Route, type RouteName, requiresAuth } from '../api/routes';
import { documentedCounterpart } from '../books/documented-checks';
import { IdempotencyKeyReusedError } from '../books/errors';
import { IDEMPOTENCY_KEY_LIFETIME_SECONDS } from '../books/idempotency';
import { MAX_BOOK_ID } from '../books/limits';
import { BookIdSchema, BookInputSchema, BookPatchSchema, BookQuerySchema } from '../books/schemas';
import { BOOK_FIELDS } from '../books/types';
import { ListTooLargeError, PreconditionRequiredError, UnsupportedMediaTypeError } from '../http/errors';
import { IDEMPOTENCY_KEY_PATTERN } from '../http/idempotency-key';
import { JSON_MEDIA_TYPE, MAX_BODY_BYTES, MERGE_PATCH_MEDIA_TYPE } from '../http/json-body';
import { MAX_LISTED_TAGS } from '../http/preconditions';
import {
  CONTENDED_WRITE_MESSAGE,
  GATEWAY_BODY_TOO_LARGE_MESSAGE,
  INTERNAL_ERROR_MESSAGE,
  METHOD_NOT_ALLOWED_MESSAGE,
} from '../http/responses';
import { CACHE_CONTROL } from '../http/standard-headers';

/**
 * The OpenAPI 3.1 description of the API. Request bodies, path and query parameters come from the
 * very valibot schemas the handlers validate with; the operations come from the route table, and
 * each route's responses from OPERATIONS below. Bodies the code builds by hand (errors, the stored
 * book) are described here, next to the statuses that carry them.
 */
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, Record<string, unknown>>;
}

type PipeItem = {
  kind: string;
  type: string;
  pipe?: PipeItem[];
  entries?: Record<string, PipeItem>;
  wrapped?: PipeItem;
};

/**
 * The checks the converter would leave out without a word: a `check()` or anything after a
 * transformation, when no JSON Schema counterpart is registered for it (see documentedAs). Each is
 * named by its path and type.
 */
export const undocumentedChecks = (schema: unknown, path = '$'): string[] => {
  const item = schema as PipeItem;
  const found: string[] = [];
  if (item.entries) {
    for (const [key, entry] of Object.entries(item.entries)) found.push(...undocumentedChecks(entry, `${path}.${key}`));
  }
  if (item.wrapped) found.push(...undocumentedChecks(item.wrapped, path));
  let transformed = false;
  for (const [index, step] of (item.pipe ?? []).entries()) {
    if (index === 0) continue;
    if (step.kind === 'transformation') transformed = true;
    const unreadable = step.type === 'check' || (transformed && (step.kind === 'validation' || step.kind === 'schema'));
    if (unreadable && !documentedCounterpart(step)) found.push(`${path}: ${step.type}`);
    if (step.kind === 'schema') found.push(...undocumentedChecks(step, path));
  }
  return found;
};

/**
 * JSON Schema 2020-12 (OpenAPI 3.1's dialect). Parameters are converted as the strings they arrive
 * as (`input`: stop before a transformation); body fields start with `unknown` plus checks (so that
 * `null` gets the spec's "required" message), which `input` mode would stop at, so they are
 * converted whole. Checks the converter cannot read take their registered counterparts; one without
 * a counterpart fails the build rather than leave the document looser than the validation.
 */
const jsonSchema = (schema: v.GenericSchema, typeMode: 'input' | 'output'): JsonSchema => {
  const undocumented = undocumentedChecks(schema);
  if (undocumented.length > 0) {
    throw new Error(`Checks without a JSON Schema counterpart: ${undocumented.join(', ')}`);
  }
  const { $schema: _, ...rest } = toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode,
    errorMode: 'throw',
    overrideAction: ({ valibotAction, jsonSchema: converted }) => {
      const counterpart = documentedCounterpart(valibotAction);
      return counterpart && { ...converted, ...counterpart };
    },
  });
  return rest;
};

/** The text pattern reads poorly; say it in words too. */
const withBlankNote = (schema: JsonSchema): JsonSchema => {
  const properties = (schema as { properties?: Record<string, JsonSchema & { type?: string }> }).properties ?? {};
  for (const property of Object.values(properties)) {
    if (property.type === 'string') {
      property.description = 'Must not be blank; no control character other than tab, line feed and carriage return';
    }
  }
  if (Array.isArray(schema.required) && schema.required.length === 0) delete schema.required;
  return schema;
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const response = (name: string) => ({ $ref: `#/components/responses/${name}` });
const jsonContent = (schema: unknown) => ({ 'application/json': { schema } });

type Status = '200' | '201' | '204' | '304' | '400' | '404' | '409' | '412' | '413' | '415' | '422' | '428' | '503';

/** Request headers an operation reads, each described once in HEADER_PARAMETERS. */
type RequestHeader = 'If-Match' | 'If-None-Match' | 'Idempotency-Key';

interface OperationSpec {
  summary: string;
  body?: 'BookInput' | 'BookPatch';
  /** Media types the body may come in besides application/json. */
  alsoAccept?: readonly string[];
  query?: boolean;
  headers?: RequestHeader[];
  responses: Partial<Record<Status, Record<string, unknown>>>;
  tag?: string;
}

const ETAG = {
  ETag: {
    description: 'The book’s current entity tag (strong, opaque): send it in If-Match to write only over this version',
    schema: { type: 'string' },
  },
};
/** A read with a validator: a browser may keep it only to revalidate it (docs/behaviour.md#caching). */
const REVALIDATE = {
  'Cache-Control': {
    description: `\`${CACHE_CONTROL.revalidate}\`: no shared cache stores it; a browser revalidates it with If-None-Match before each use. Every other answer of the API is \`${CACHE_CONTROL.noStore}\``,
    schema: { const: CACHE_CONTROL.revalidate },
  },
};
const BOOK_OK = { description: 'The book', headers: ETAG, content: jsonContent(ref('Book')) };
const BOOK_READ = { ...BOOK_OK, headers: { ...ETAG, ...REVALIDATE } };
const NOT_FOUND = { description: 'No book has this id (no body)' };
const ISBN_TAKEN = { description: 'Another book has this ISBN (no body)' };
const BODY_ERRORS = { '413': response('PayloadTooLarge'), '415': response('UnsupportedMediaType') };
/** Every write retries lost races; when they keep being lost, this. */
const CONTENDED = { '503': response('ContendedWrite') };

/** What If-Match adds to PUT, PATCH and DELETE. */
const CONDITIONAL_WRITE = { '412': response('PreconditionFailed'), '428': response('PreconditionRequired') };

/** PUT and PATCH answer alike: the book as stored now, or why not. */
const UPDATE_RESPONSES = {
  '200': BOOK_OK,
  '400': response('ValidationFailed'),
  '404': NOT_FOUND,
  '409': ISBN_TAKEN,
  ...CONDITIONAL_WRITE,
  ...BODY_ERRORS,
  ...CONTENDED,
};

/** Any text: a value that is not `*` or a list of quoted tags names no tag (see parseTagList). */
const TAG_LIST_SCHEMA = { type: 'string' };

/** The request headers, as the handlers parse them (a value the pattern refuses is 400). */
const HEADER_PARAMETERS: Record<RequestHeader, Record<string, unknown>> = {
  'If-Match': {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: `Write only if the book's current ETag is one of these (strong comparison: W/ tags never match), or * for any existing book; else 412. Empty list elements are ignored; a value that is not * or a list of at most ${MAX_LISTED_TAGS} quoted tags matches nothing. Required when the deployment sets requireIfMatch (else 428)`,
    schema: TAG_LIST_SCHEMA,
  },
  'If-None-Match': {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: `On GET, 304 without a body when the book's current ETag is one of these (weak comparison), or *; on PUT, PATCH and DELETE, 412 when it is one of these or * (the book exists), checked after If-Match. Empty list elements are ignored; a value that is not * or a list of at most ${MAX_LISTED_TAGS} quoted tags matches nothing`,
    schema: TAG_LIST_SCHEMA,
  },
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: `A key for retrying this create safely (IETF httpapi Idempotency-Key, draft-07): a quoted string (or the bare text) of 1 to 255 printable ASCII characters without " or \\. Within ${IDEMPOTENCY_KEY_LIFETIME_SECONDS / 3600} hours, the same user repeating the key with the same book gets the first 201 again (same id, Location, body, ETag) and no second book; with another book, 422`,
    schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN },
  },
};

/** Per route name: what the handler answers besides the statuses every route shares. */
/** Keyed by the route table's names: a route without an operation does not compile. */
export const OPERATIONS: Record<RouteName, OperationSpec> = {
  ListBooks: {
    summary: 'List books, optionally filtered (filters combine with AND), in ascending id order',
    query: true,
    responses: {
      '200': {
        description:
          'Matching books (empty when none match), streamed as they are read; with `limit` or `cursor`, one page of them. A failure after the first byte fails the transfer, the array unfinished, so no client takes it for the whole list; past the deployment’s cap (35,000 by default) 422',
        headers: {
          Link: {
            description: 'With `limit` or `cursor`, while more books match: `<next page URL>; rel="next"` (RFC 8288)',
            schema: { type: 'string' },
          },
        },
        content: jsonContent({ type: 'array', items: ref('Book') }),
      },
      '400': response('ValidationFailed'),
      '422': response('ListTooLarge'),
    },
  },
  CreateBook: {
    summary: 'Create a book',
    body: 'BookInput',
    headers: ['Idempotency-Key'],
    responses: {
      '201': {
        description: 'Created (or, for a repeated Idempotency-Key with the same book, the first request’s 201 again)',
        headers: {
          Location: { description: 'The request URL with /{id} appended', schema: { type: 'string', format: 'uri' } },
          ...ETAG,
        },
        content: jsonContent(ref('Book')),
      },
      '400': response('ValidationFailed'),
      '409': ISBN_TAKEN,
      '422': response('IdempotencyKeyReused'),
      ...BODY_ERRORS,
      ...CONTENDED,
    },
  },
  GetBook: {
    summary: 'Read a book',
    headers: ['If-None-Match'],
    responses: {
      '200': BOOK_READ,
      '304': {
        description: 'If-None-Match named the current ETag: the client’s copy is current (no body)',
        headers: { ...ETAG, ...REVALIDATE },
      },
      '400': response('ValidationFailed'),
      '404': NOT_FOUND,
    },
  },
  ReplaceBook: {
    summary: 'Replace a book (createdAt kept, updatedAt set); a missing book is not created',
    body: 'BookInput',
    headers: ['If-Match', 'If-None-Match'],
    responses: UPDATE_RESPONSES,
  },
  PatchBook: {
    summary: 'Change the supplied fields; updatedAt is refreshed when at least one is supplied',
    body: 'BookPatch',
    headers: ['If-Match'],
    alsoAccept: [MERGE_PATCH_MEDIA_TYPE],
    responses: UPDATE_RESPONSES,
  },
  DeleteBook: {
    summary: 'Delete a book',
    headers: ['If-Match', 'If-None-Match'],
    responses: {
      '204': { description: 'Deleted (no body)' },
      '400': response('ValidationFailed'),
      '404': NOT_FOUND,
      ...CONDITIONAL_WRITE,
      ...CONTENDED,
    },
  },
  GetOpenApi: {
    summary: 'This document',
    tag: 'meta',
    responses: { '200': { description: 'The OpenAPI 3.1 document', content: jsonContent({ type: 'object' }) } },
  },
  GetApiReference: {
    summary: 'This document as an interactive reference (Swagger UI), in a browser',
    tag: 'meta',
    responses: {
      '200': { description: 'The reference page', content: { 'text/html': { schema: { type: 'string' } } } },
    },
  },
  GetApiReferenceAsset: {
    summary: 'A script or style sheet of the interactive reference',
    tag: 'meta',
    responses: {
      '200': {
        description: 'The file',
        content: {
          'text/javascript': { schema: { type: 'string' } },
          'text/css': { schema: { type: 'string' } },
        },
      },
      '404': { description: 'No such file (no body)' },
    },
  },
};

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

const operation = (route: Route, publicReads: boolean): Operation => {
  const spec = OPERATIONS[route.name];
  const guarded = requiresAuth(route, publicReads);
  const parameters = [
    ...pathParameters(route),
    ...(spec.query ? queryParameters() : []),
    ...(spec.headers ?? []).map((name) => HEADER_PARAMETERS[name]),
  ];
  return {
    operationId: route.name.charAt(0).toLowerCase() + route.name.slice(1),
    summary: spec.summary,
    tags: [spec.tag ?? 'books'],
    security: guarded ? [{ basic: [] }, { digest: [] }] : [],
    ...(parameters.length > 0 && { parameters }),
    ...(spec.body && { requestBody: { required: true, content: bodyContent(spec.body, spec.alsoAccept ?? []) } }),
    responses: {
      '400': response('MalformedHost'),
      ...spec.responses,
      ...(guarded && { '401': response('Unauthorized') }),
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

/**
 * A body API Gateway writes itself (its gateway responses, infra/constructs/rest-api.ts). Their
 * templates only substitute variables: no ISO date-time can be written (`$context.requestTime` is in
 * Common Log Format, `$context.requestTimeEpoch` in milliseconds), so these bodies have no
 * `timestamp`; where the gateway keeps a status it chose (DEFAULT_4XX, DEFAULT_5XX) the template
 * cannot name it, so they have no `status` either (docs/contract.md lists them).
 */
export const gatewayErrorBody = (status?: number, message?: string) => ({
  type: 'object',
  description: 'Answered by API Gateway itself, without a timestamp (its templates cannot write an ISO date-time)',
  required: status === undefined ? ['message'] : ['status', 'message'],
  properties: {
    ...(status !== undefined && { status: { const: status } }),
    message: message ? { const: message } : { type: 'string' },
  },
  additionalProperties: false,
});

const errorBody = (status: number, message?: string) => ({
  type: 'object',
  required: ['timestamp', 'status', 'message'],
  properties: {
    timestamp: { type: 'string', format: 'date-time' },
    status: { const: status },
    message: message ? { const: message } : { type: 'string' },
  },
});

/** The service's body, or the one API Gateway writes for the same status. */
const errorBodyOrGateway = (service: object, gateway: object) => ({ anyOf: [service, gateway] });

const components = () => {
  const bookInput = withBlankNote(jsonSchema(BookInputSchema, 'output'));
  const properties = (bookInput as { properties: Record<string, JsonSchema> }).properties;
  return {
    securitySchemes: {
      basic: { type: 'http', scheme: 'basic', description: 'RFC 7617; over HTTPS only' },
      digest: {
        type: 'http',
        scheme: 'digest',
        description: 'RFC 7616 with qop="auth" (and the RFC 2069 form without qop); nonces are single-use',
      },
    },
    schemas: {
      BookInput: bookInput,
      BookPatch: withBlankNote(jsonSchema(BookPatchSchema, 'output')),
      Book: {
        type: 'object',
        required: [...BOOK_FIELDS],
        properties: {
          id: { type: 'integer', minimum: 1, maximum: MAX_BOOK_ID },
          ...properties,
          createdAt: { type: 'string', format: 'date-time' },
          updatedAt: { type: 'string', format: 'date-time' },
        },
      },
      ValidationError: {
        type: 'object',
        required: ['timestamp', 'status', 'errors'],
        properties: {
          timestamp: { type: 'string', format: 'date-time' },
          status: { const: 400 },
          errors: {
            type: 'object',
            description: 'Field name (or `body`, `id`, a query parameter) to its violation message',
            additionalProperties: { type: 'string' },
          },
        },
      },
    },
    responses: {
      ValidationFailed: {
        description:
          'Invalid body (not UTF-8, not JSON, or a field breaking its rule: text with an unpaired surrogate included), path id, query or `Host` header',
        content: jsonContent(ref('ValidationError')),
      },
      MalformedHost: {
        description:
          'A `Host` header that is not a host name or IP address with an optional port (`errors.host`); on AWS such a request never reaches the API',
        content: jsonContent(ref('ValidationError')),
      },
      Unauthorized: {
        description: 'Credentials missing or invalid',
        headers: {
          'WWW-Authenticate': {
            description:
              'A Digest challenge per offered algorithm (realm, qop="auth", algorithm, nonce, opaque, charset, and stale=true for a spent or expired nonce), then the Basic challenge `Basic realm="<realm>", charset="UTF-8"` (unless the deployment leaves it out)',
            schema: { type: 'string' },
          },
        },
      },
      PayloadTooLarge: {
        description: `Body larger than ${MAX_BODY_BYTES} bytes`,
        content: jsonContent(errorBodyOrGateway(errorBody(413), gatewayErrorBody(413, GATEWAY_BODY_TOO_LARGE_MESSAGE))),
      },
      UnsupportedMediaType: {
        description: `A body that is not ${JSON_MEDIA_TYPE} (PATCH: also ${MERGE_PATCH_MEDIA_TYPE}), or whose charset is not UTF-8; media types compare case-insensitively`,
        content: jsonContent(errorBody(415, new UnsupportedMediaTypeError().message)),
      },
      PreconditionFailed: {
        description:
          'If-Match named no current version of the book (it changed since it was read), or If-None-Match named the current one or * for an existing book; nothing was written',
        headers: ETAG,
        content: jsonContent(errorBody(412)),
      },
      PreconditionRequired: {
        description:
          'The deployment requires If-Match on this method (stack option requireIfMatch), and the request had none',
        content: jsonContent(errorBody(428, new PreconditionRequiredError().message)),
      },
      IdempotencyKeyReused: {
        description: 'This Idempotency-Key was used with a different book: the first request’s outcome stands',
        content: jsonContent(errorBody(422, new IdempotencyKeyReusedError().message)),
      },
      ListTooLarge: {
        description:
          'The unpaged list would hold more books than the deployment lists in one response (35,000 by default, `listMaxBooks`); ask for pages with `limit`',
        content: jsonContent(errorBody(422, new ListTooLargeError().message)),
      },
      ContendedWrite: {
        description:
          'Other requests kept changing the book until the retries ran out: nothing was written; repeat after `Retry-After`',
        headers: {
          'Retry-After': {
            description: 'Seconds to wait before repeating the request',
            schema: { type: 'integer', minimum: 0 },
          },
        },
        content: jsonContent(errorBody(503, CONTENDED_WRITE_MESSAGE)),
      },
      TooManyRequests: {
        description: 'Stage throttling limit reached (answered by API Gateway)',
        content: jsonContent(gatewayErrorBody()),
      },
      InternalError: {
        description:
          'Unexpected failure; when API Gateway answers it itself (a function that crashed), `{message}` alone',
        content: jsonContent(
          errorBodyOrGateway(
            errorBody(500, INTERNAL_ERROR_MESSAGE),
            gatewayErrorBody(undefined, INTERNAL_ERROR_MESSAGE),
          ),
        ),
      },
    },
  };
};

/** The document for a deployment: `publicReads` decides which operations carry security requirements. */
export const buildOpenApiDocument = (options: { publicReads: boolean; serverUrl?: string }): OpenApiDocument => {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of ROUTES) {
    paths[route.path] ??= {};
    const pathItem = paths[route.path] as Record<string, Operation>;
    pathItem[route.method.toLowerCase()] = operation(route, options.publicReads);
    if (route.method === 'GET') pathItem.head = headOperation(pathItem.get as Operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Book Library Service',
      version: '1.0.0',
      description: `Book records over HTTP with JSON bodies, protected by HTTP Basic and Digest authentication. Every path also answers OPTIONS without credentials (204, \`Allow\` listing its methods, and a CORS preflight's answer for a configured browser origin), and any method it does not take with 405, \`Allow\` and {timestamp, status: 405, message: "${METHOD_NOT_ALLOWED_MESSAGE}"}.`,
    },
    ...(options.serverUrl && { servers: [{ url: options.serverUrl }] }),
    tags: [{ name: 'books' }, { name: 'meta' }],
    paths,
    components: components(),
  };
};
