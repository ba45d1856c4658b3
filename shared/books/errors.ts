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
  constructor(readonly id: number) {
    super(`Book ${id} does not exist`);
  }
}

/** Another book already holds the same ISBN (compared in normalised form). */
export class DuplicateIsbnError extends Error {
  override readonly name = 'DuplicateIsbnError';
  constructor(readonly isbn: string) {
    super(`ISBN ${isbn} is already in use`);
  }
}

/**
 * A write to a book kept meeting concurrent writes to it until the store's retries ran out: nothing
 * was written, and the same request may succeed a moment later. Thrown by the book store.
 */
export class ConcurrentUpdateError extends Error {
  override readonly name = 'ConcurrentUpdateError';
}
