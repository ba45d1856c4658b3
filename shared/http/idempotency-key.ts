import { ValidationError } from '../books/errors';

/**
 * Idempotency-Key on POST (IETF httpapi draft-07): an sf-string, `"…"`, of printable ASCII. The bare
 * form many clients send (a UUID without quotes) is the same key. At most 255 characters, and no
 * `"` or `\` inside, so every key reads the same way quoted or bare.
 */
export const IDEMPOTENCY_KEY_PATTERN = String.raw`^(?:"[\x20\x21\x23-\x5b\x5d-\x7e]{1,255}"|[\x21\x23-\x5b\x5d-\x7e]{1,255})$`;
const IDEMPOTENCY_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The key without its quotes; undefined when absent; ValidationError (400) when malformed. */
export const parseIdempotencyKey = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (!IDEMPOTENCY_KEY.test(trimmed)) {
    throw new ValidationError({
      'Idempotency-Key': 'Idempotency-Key must be a quoted string of 1 to 255 printable ASCII characters',
    });
  }
  return trimmed.startsWith('"') ? trimmed.slice(1, -1) : trimmed;
};
