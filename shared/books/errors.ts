import type { FailedCondition } from './preconditions';
import type { FieldErrors } from './types';

/** The request does not satisfy the book rules; `errors` maps each field to its first violation. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(readonly errors: FieldErrors) {
    super(`Invalid request: ${Object.keys(errors).join(', ')}`);
  }
}

export class BookNotFoundError extends Error {
  override readonly name = 'BookNotFoundError';
  constructor(
    readonly id: number,
    options?: ErrorOptions,
  ) {
    super(`Book ${id} does not exist`, options);
  }
}

/** Another book already holds the same ISBN (compared in normalised form). */
export class DuplicateIsbnError extends Error {
  override readonly name = 'DuplicateIsbnError';
  constructor(
    readonly isbn: string,
    options?: ErrorOptions,
  ) {
    super(`ISBN ${isbn} is already in use`, options);
  }
}

/**
 * The write's `match` condition named no current version of the book, or its `noneMatch` condition
 * named the current one (or `*`, and the book exists); `currentVersion` gives the version the client
 * lacks. shared/http names the header each condition came from.
 */
export class PreconditionFailedError extends Error {
  override readonly name = 'PreconditionFailedError';
  constructor(
    readonly id: number,
    readonly currentVersion: number,
    readonly condition: FailedCondition = 'match',
    options?: ErrorOptions,
  ) {
    super(
      condition === 'match'
        ? `Book ${id} is at none of the versions the write names (it has changed since that version was read)`
        : `Book ${id} is at a version the write excludes`,
      options,
    );
  }
}

/** An Idempotency-Key reused with a different request: the first request's outcome stands. */
export class IdempotencyKeyReusedError extends Error {
  override readonly name = 'IdempotencyKeyReusedError';
  constructor(options?: ErrorOptions) {
    super('This Idempotency-Key was already used with a different request body', options);
  }
}

/**
 * A write to a book kept meeting concurrent writes to it until the store's retries ran out: nothing
 * was written, and the same request may succeed a moment later. Thrown by the book store.
 */
export class ConcurrentUpdateError extends Error {
  override readonly name = 'ConcurrentUpdateError';
}

/**
 * The book store's data is in a shape this version cannot serve yet: an operator has yet to run an
 * upgrade step (its cause says which). Nothing was read or written; the request may succeed later.
 * Declared beside the port, like ConcurrentUpdateError, so the HTTP layer maps it to 503.
 */
export class BookStoreNotReadyError extends Error {
  override readonly name = 'BookStoreNotReadyError';
}
