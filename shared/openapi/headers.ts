import { IDEMPOTENCY_KEY_LIFETIME_SECONDS } from '../books/idempotency';
import { IDEMPOTENCY_KEY_PATTERN } from '../http/idempotency-key';
import { MAX_LISTED_TAGS } from '../http/preconditions';
import { CACHE_CONTROL } from '../http/standard-headers';
import type { RequestHeader } from './types';

/** Response headers several answers carry. */
export const ETAG = {
  ETag: {
    description: 'The book’s current entity tag (strong, opaque): send it in If-Match to write only over this version',
    schema: { type: 'string' },
  },
};
/** A read with a validator: a browser may keep it only to revalidate it (docs/contract.md#caching). */
export const REVALIDATE = {
  'Cache-Control': {
    description: `\`${CACHE_CONTROL.revalidate}\`: no shared cache stores it; a browser revalidates it with If-None-Match before each use. Every other answer of the API is \`${CACHE_CONTROL.noStore}\``,
    schema: { const: CACHE_CONTROL.revalidate },
  },
};

/** Any text: a value that is not `*` or a list of quoted tags names no tag (see parseTagList). */
const TAG_LIST_SCHEMA = { type: 'string' };

/** The request headers, as the handlers parse them (a value the pattern refuses is 400). */
export const HEADER_PARAMETERS: Record<RequestHeader, Record<string, unknown>> = {
  'If-Match': {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: `Write only if the book's current ETag is one of these (strong comparison: W/ tags never match), or * for any existing book; else 412. Empty list elements are ignored; a value that is not * or a list of at most ${MAX_LISTED_TAGS} quoted tags matches nothing. Required when the deployment sets requireIfMatch (else 428)`,
    schema: TAG_LIST_SCHEMA,
  },
  'If-None-Match': {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: `On GET, 304 without a body when the book's current ETag is one of these (weak comparison), or *; on PUT, PATCH and DELETE, 412 when it is one of these or * (the book exists), checked after If-Match. Empty list elements are ignored; a value that is not * or a list of at most ${MAX_LISTED_TAGS} quoted tags matches nothing`,
    schema: TAG_LIST_SCHEMA,
  },
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: `A key for retrying this create safely (IETF httpapi Idempotency-Key, draft-07): a quoted string (or the bare text) of 1 to 255 printable ASCII characters without " or \\. Within ${IDEMPOTENCY_KEY_LIFETIME_SECONDS / 3600} hours, the same user repeating the key with the same book gets the first 201 again (same id, Location, body, ETag) and no second book; with another book, 422`,
    schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN },
  },
};
