import type { CreateKey } from '../books/book-service';
import type { VersionCondition } from '../books/preconditions';
import type { VersionedBook } from '../books/types';
import { PreconditionRequiredError } from './errors';
import { parseIdempotencyKey } from './idempotency-key';
import { entityTag, ifMatchCondition, ifNoneMatchCondition, parseTagList, type TagList } from './preconditions';
import type { HttpEvent } from './types';

/**
 * A request header's whole value: every field line of that name joined as one list (RFC 9110 §5.3),
 * since API Gateway's `headers` keeps only the last line and a client may split a list over several.
 */
export const headerValue = (event: HttpEvent, name: string): string | undefined => {
  const lines = event.multiValueHeaders?.[name];
  if (lines && lines.length > 0) return lines.join(', ');
  return event.headers?.[name] ?? undefined;
};

/**
 * If-Match and If-None-Match of a PUT, PATCH or DELETE as the condition the store's write carries;
 * undefined when the request has neither. A deployment that requires If-Match answers 428 without it.
 */
export const writeConditionOf = (event: HttpEvent, id: number, required: boolean): VersionCondition | undefined => {
  const tags = parseTagList(headerValue(event, 'if-match'));
  if (tags === undefined && required) throw new PreconditionRequiredError();
  const match = ifMatchCondition(id, tags);
  const noneMatch = ifNoneMatchCondition(id, parseTagList(headerValue(event, 'if-none-match')));
  return match === undefined && noneMatch === undefined ? undefined : { match, noneMatch };
};

export const ifNoneMatchOf = (event: HttpEvent): TagList | undefined =>
  parseTagList(headerValue(event, 'if-none-match'));

/**
 * A POST's Idempotency-Key, scoped to the user the authorizer let in (its principal), so two users'
 * identical keys never meet.
 */
export const createKeyOf = (event: HttpEvent): CreateKey | undefined => {
  const key = parseIdempotencyKey(headerValue(event, 'idempotency-key'));
  if (key === undefined) return undefined;
  const owner = String(event.requestContext?.authorizer?.principalId ?? 'anonymous');
  return { owner, key };
};

/** The `ETag` field of a response that carries one book. */
export const etagOf = ({ book, version }: VersionedBook) => ({ ETag: entityTag(book.id, version) });
