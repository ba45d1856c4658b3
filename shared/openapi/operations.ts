import type { RouteName } from '../api/routes';
import { BOOK_INPUT_FIELDS } from '../books/book-schema';
import { DEFAULT_LIST_MAX_BOOKS } from '../books/limits';
import { MERGE_PATCH_MEDIA_TYPE } from '../http/json-body';
import { API_INDEX_TARGETS } from './api-index';
import { ETAG, REVALIDATE } from './headers';
import { jsonContent, ref, response } from './references';
import type { OperationSpec } from './types';

/** Answers several book operations share. */
const BOOK_OK = { description: 'The book', headers: ETAG, content: jsonContent(ref('Book')) };
const BOOK_READ = { ...BOOK_OK, headers: { ...ETAG, ...REVALIDATE } };
const NOT_FOUND = { description: 'No book has this id (no body)' };
/** The client fields as the descriptions name them (`title, author, isbn and publicationYear`), from the Book schema. */
const CLIENT_FIELDS = `${BOOK_INPUT_FIELDS.slice(0, -1).join(', ')} and ${BOOK_INPUT_FIELDS.at(-1)}`;
const ISBN_TAKEN = { description: 'Another book has this ISBN (no body)' };
const BODY_ERRORS = { '413': response('PayloadTooLarge'), '415': response('UnsupportedMediaType') };
/** Every write retries lost races; when they keep being lost, 503. Every book operation refuses a table too old. */
const WRITE_UNAVAILABLE = ['contended', 'upgrading'] as const;
const READ_UNAVAILABLE = ['upgrading'] as const;

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
};

/** `/` and `/api` answer alike: where the reference, the document and the books are. */
const API_INDEX: OperationSpec = {
  summary: 'Where this API’s reference, OpenAPI document and books are',
  description:
    'The first URLs a person types: a pointer to the interactive reference (/api/docs) and this document, as JSON `links` on the API’s own base URL and as `Link` relations (RFC 8631); no credentials needed',
  tag: 'meta',
  responses: {
    '200': {
      description: 'Where the API’s parts are',
      headers: {
        Link: {
          description: '`<…/api/docs>; rel="service-doc", <…/api/openapi.json>; rel="service-desc"`',
          schema: { type: 'string' },
        },
      },
      content: jsonContent({
        type: 'object',
        required: ['message', 'links'],
        properties: {
          message: { type: 'string' },
          links: {
            type: 'object',
            required: Object.keys(API_INDEX_TARGETS),
            properties: Object.fromEntries(
              Object.keys(API_INDEX_TARGETS).map((name) => [name, { type: 'string', format: 'uri-reference' }]),
            ),
          },
        },
      }),
    },
  },
};

/**
 * Per route name: what the handler answers besides the statuses every route shares (see paths.ts).
 * Keyed by the route table's names: a route without an operation does not compile.
 */
export const OPERATIONS: Record<RouteName, OperationSpec> = {
  ListBooks: {
    summary: 'List books, optionally filtered (filters combine with AND), in ascending id order',
    description:
      '`author` matches when equal ignoring case (both sides Unicode-NFC-normalised and lower-cased, no trimming), `year` when equal to publicationYear; unknown parameters are ignored. Without `limit` and `cursor` the whole list streams, book by book; with either, one page, and while more books match a `Link` to the next',
    query: true,
    responses: {
      '200': {
        description: `Matching books (empty when none match), streamed as they are read; with \`limit\` or \`cursor\`, one page of them. A failure after the first byte fails the transfer, the array unfinished, so no client takes it for the whole list; past the deployment’s cap (${DEFAULT_LIST_MAX_BOOKS.toLocaleString('en-US')} by default) 422`,
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
    unavailable: READ_UNAVAILABLE,
  },
  CreateBook: {
    summary: 'Create a book',
    description:
      'The body is validated first (a 400 names each field that breaks its rule), then its ISBN: one another book already has, compared with spaces and hyphens removed and letters upper-cased, is 409. The service assigns the id; other keys of the body are ignored',
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
    },
    unavailable: WRITE_UNAVAILABLE,
  },
  GetBook: {
    summary: 'Read a book',
    description:
      'The book’s current version comes in `ETag`: send it in If-None-Match to revalidate a kept copy (304), or in If-Match to write over exactly this version',
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
    unavailable: READ_UNAVAILABLE,
  },
  ReplaceBook: {
    summary: 'Replace a book (createdAt kept, updatedAt set); a missing book is not created',
    description: `The whole book, validated as on create, replaces ${CLIENT_FIELDS} (an optional one left out is removed); the id is the path’s. 409 when another book has the ISBN`,
    body: 'BookInput',
    headers: ['If-Match', 'If-None-Match'],
    responses: UPDATE_RESPONSES,
    unavailable: WRITE_UNAVAILABLE,
  },
  PatchBook: {
    summary: 'Change the supplied fields; updatedAt is refreshed when at least one is supplied',
    description: `Any subset of ${CLIENT_FIELDS}, each validated as on create (\`null\` removes an optional field; a required one refuses it); other keys are ignored, and \`{}\` returns the book unchanged. 409 when another book has the ISBN`,
    body: 'BookPatch',
    headers: ['If-Match', 'If-None-Match'],
    alsoAccept: [MERGE_PATCH_MEDIA_TYPE],
    responses: UPDATE_RESPONSES,
    unavailable: WRITE_UNAVAILABLE,
  },
  DeleteBook: {
    summary: 'Delete a book',
    description:
      'Afterwards, reads of this id get 404, the book’s ISBN is free for another book, and the id is never given out again',
    headers: ['If-Match', 'If-None-Match'],
    responses: {
      '204': { description: 'Deleted (no body)' },
      '400': response('ValidationFailed'),
      '404': NOT_FOUND,
      ...CONDITIONAL_WRITE,
    },
    unavailable: WRITE_UNAVAILABLE,
  },
  GetOpenApi: {
    summary: 'This document',
    description:
      'The OpenAPI 3.1 description of this deployment, without credentials: `servers` names the API’s own origin (never the client’s Host), and each operation that needs credentials says so',
    tag: 'meta',
    responses: { '200': { description: 'The OpenAPI 3.1 document', content: jsonContent({ type: 'object' }) } },
  },
  GetAsyncApi: {
    summary: 'The change events’ description',
    description:
      'The AsyncAPI 3 description of the events every change of a book publishes (CloudEvents 1.0; `data` is the Book schema of this document), without credentials',
    tag: 'meta',
    responses: { '200': { description: 'The AsyncAPI 3 document', content: jsonContent({ type: 'object' }) } },
  },
  GetApiReference: {
    summary: 'This document as an interactive reference (Swagger UI), in a browser',
    description:
      'Swagger UI, served by the API itself and loading nothing from elsewhere, rendering /api/openapi.json; no credentials needed to open it',
    tag: 'meta',
    responses: {
      '200': { description: 'The reference page', content: { 'text/html': { schema: { type: 'string' } } } },
    },
  },
  GetApiReferenceAsset: {
    summary: 'A script or style sheet of the interactive reference',
    description:
      "Swagger UI's script and style sheet, served by the API itself for the reference page; no credentials needed",
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
  GetApiIndex: API_INDEX,
  GetRootIndex: API_INDEX,
};
