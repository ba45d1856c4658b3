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
