import { createHash } from 'node:crypto';
import { BOOK_SCHEMA, type BookSchema } from './book-schema';
import type { BookInput } from './types';

/** How long a key is remembered: a retry within this time replays the first response. */
export const IDEMPOTENCY_KEY_LIFETIME_SECONDS = 24 * 60 * 60;

/**
 * The request's fingerprint: a digest of the book the body describes, so a retry that re-serialises
 * the same book differently is still the same request. The required fields' values in the schema's
 * order, then each optional field the book carries as a [name, value] pair: an optional field added
 * later that a stored request did not carry leaves its fingerprint as it was, so a retry across the
 * deploy still replays.
 */
export const requestFingerprint = (input: BookInput, schema: BookSchema = BOOK_SCHEMA): string => {
  const values = input as Record<string, unknown>;
  const required = schema.inputFields.filter((field) => !schema.optionalFields.has(field));
  const optional = schema.inputFields.filter(
    (field) => schema.optionalFields.has(field) && values[field] !== undefined,
  );
  const canonical = [
    ...required.map((field) => values[field] ?? null),
    ...optional.map((field) => [field, values[field]]),
  ];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
};

/** A create that carries a key: whose key it is, the key, and the request's fingerprint. */
export interface IdempotentRequest {
  /** The authenticated user: keys of different users never meet. */
  owner: string;
  key: string;
  fingerprint: string;
}
