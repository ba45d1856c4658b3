import type { RouteName } from '../api/routes';
import { MERGE_PATCH_MEDIA_TYPE } from '../http/json-body';
import { ETAG, REVALIDATE } from './headers';
import { jsonContent, ref, response } from './references';
import type { OperationSpec } from './types';

/** Answers several book operations share. */
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

/**
 * Per route name: what the handler answers besides the statuses every route shares (see paths.ts).
 * Keyed by the route table's names: a route without an operation does not compile.
 */
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
