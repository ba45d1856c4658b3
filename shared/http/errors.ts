/** Errors of the HTTP envelope itself, before any book rule is looked at. */
export class PayloadTooLargeError extends Error {
  override readonly name = 'PayloadTooLargeError';
  readonly statusCode = 413;
  constructor(limitBytes: number) {
    super(`Request body must be at most ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends Error {
  override readonly name = 'UnsupportedMediaTypeError';
  readonly statusCode = 415;
  constructor() {
    super('Content-Type must be application/json');
  }
}

/**
 * The full list would not fit in one Lambda response. 422: the request is well-formed, but the
 * service will not carry out this form of it; the message names the form it will carry out.
 */
export class ResultTooLargeError extends Error {
  override readonly name = 'ResultTooLargeError';
  readonly statusCode = 422;
  constructor() {
    super(
      'The result is larger than the 6 MB one response can carry; request it in pages with ?limit= (1 to 1000) and follow the Link rel="next" header',
    );
  }
}
