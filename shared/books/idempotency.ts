import { createHash } from 'node:crypto';
import { BOOK_INPUT_FIELDS } from './book-schema';
import type { BookInput } from './types';

/** How long a key is remembered: a retry within this time replays the first response. */
export const IDEMPOTENCY_KEY_LIFETIME_SECONDS = 24 * 60 * 60;

/**
 * The request's fingerprint: a digest of the book the body describes (every client field in the
 * schema's order, an absent optional one as `null`), so a retry that re-serialises the same book
 * differently is still the same request.
 */
export const requestFingerprint = (input: BookInput): string =>
  createHash('sha256')
    .update(JSON.stringify(BOOK_INPUT_FIELDS.map((field) => input[field] ?? null)))
    .digest('base64url');

/** A create that carries a key: whose key it is, the key, and the request's fingerprint. */
export interface IdempotentRequest {
  /** The authenticated user: keys of different users never meet. */
  owner: string;
  key: string;
  fingerprint: string;
}
