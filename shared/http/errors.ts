import type { Role } from '../auth/roles';
import { MAX_PAGE_LIMIT } from '../books/limits';

/**
 * Errors of the HTTP envelope itself, before or after any book rule is looked at: each carries its
 * status and a message the client may read, and becomes `{timestamp, status, message}`.
 */
export abstract class HttpError extends Error {
  abstract readonly statusCode: number;
}

export class PayloadTooLargeError extends HttpError {
  override readonly name = 'PayloadTooLargeError';
  readonly statusCode = 413;
  constructor(limitBytes: number) {
    super(`Request body must be at most ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  override readonly name = 'UnsupportedMediaTypeError';
  readonly statusCode = 415;
  constructor() {
    super('Content-Type must be application/json, in UTF-8');
  }
}

/**
 * An unpaged list would hold more books than the deployment's cap (`LIST_MAX_BOOKS`, the stack's
 * `listMaxBooks`), which an operator sets to bound what one request reads from the table. 422: the
 * request is well-formed, but the service will not carry out this form of it; the message names
 * the form it will carry out.
 */
export class ListTooLargeError extends HttpError {
  override readonly name = 'ListTooLargeError';
  readonly statusCode = 422;
  constructor() {
    super(
      `The result holds more books than this service lists in one response; request it in pages with ?limit= (1 to ${MAX_PAGE_LIMIT}) and follow the Link rel="next" header`,
    );
  }
}

/** The deployment requires If-Match on PUT, PATCH and DELETE (RFC 6585 §3), and the request has none. */
export class PreconditionRequiredError extends HttpError {
  override readonly name = 'PreconditionRequiredError';
  readonly statusCode = 428;
  constructor() {
    super('This request must be conditional: send If-Match with the ETag of the book as last read (or *)');
  }
}

/**
 * The user is authenticated, but its role is short of the one the route needs (shared/api/routes.ts).
 * 403, not 401: other credentials are not asked for, so no challenge goes with it.
 */
export class ForbiddenError extends HttpError {
  override readonly name = 'ForbiddenError';
  readonly statusCode = 403;
  constructor(needed: Role) {
    super(
      `This request needs the ${needed} role${needed === 'admin' ? '' : ' or a higher one'}; your role does not allow it`,
    );
  }
}
