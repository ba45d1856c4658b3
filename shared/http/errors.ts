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
 * The full list would not fit in one Lambda response. 422: the request is well-formed, but the
 * service will not carry out this form of it; the message names the form it will carry out.
 */
export class ResultTooLargeError extends HttpError {
  override readonly name = 'ResultTooLargeError';
  readonly statusCode = 422;
  constructor() {
    super(
      `The result is larger than the 6 MB one response can carry; request it in pages with ?limit= (1 to ${MAX_PAGE_LIMIT}) and follow the Link rel="next" header`,
    );
  }
}
