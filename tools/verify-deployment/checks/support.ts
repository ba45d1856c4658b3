import { type Challenge, noncesOf, parseChallenges } from '../../http-auth/challenges';
import { expectStatus, fail, isIsoTimestamp, parseJson } from '../expect';
import { basicAuthorization } from '../http';
import type { Book, BookFields } from '../run-books';
import type { CheckContext, HttpRequest, HttpResponse } from '../types';

/** What the checks share: requests with Basic credentials, reading challenges, books and lists. */

/** The contract's messages, written here again rather than imported: the check reads the contract, not the code. */
export const CONTRACT = {
  mediaType: 'Content-Type must be application/json, in UTF-8',
  tooLarge: 'Request body must be at most 65536 bytes',
  maxBodyBytes: 65_536,
  titleRequired: 'Title is required',
  invalidYear: 'Invalid publication year',
  invalidJson: 'Request body must be valid JSON',
  notUtf8: 'Request body must be valid UTF-8',
  methodNotAllowed: 'This method is not allowed on this path; Allow lists the ones it takes',
} as const;

export const withBasic = (context: CheckContext, headers: Record<string, string> = {}) => ({
  authorization: basicAuthorization(context.credentials),
  ...headers,
});

/** A request with Basic credentials and, when there is a body, the JSON media type; `limits` for a long answer. */
export const call = (
  context: CheckContext,
  method: string,
  target: string,
  body?: unknown,
  limits: Pick<HttpRequest, 'timeoutMs' | 'maxBytes'> = {},
) =>
  context.http.send({
    method,
    target,
    headers: withBasic(context, body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(body !== undefined && { body: JSON.stringify(body) }),
    ...limits,
  });

/** The path and query as sent, the base's path (the stage) in front: what a Digest `uri` must name. */
export const requestTarget = (context: CheckContext, target: string) => {
  const url = new URL(context.http.urlOf(target));
  return `${url.pathname}${url.search}`;
};

/** A 401's challenges, each Digest nonce noted as seen. */
export const challengeOf = (response: HttpResponse, what: string): Challenge[] => {
  expectStatus(response, 401, what);
  const field = response.headers.get('www-authenticate');
  if (!field) return fail(`${what}: 401 without a WWW-Authenticate header`);
  return parseChallenges(field);
};

export const unauthenticated = (context: CheckContext, target = '/api/books') => context.http.send({ target });

/** A fresh nonce: not carried by any 401 earlier in this run. */
export const expectFreshNonces = (context: CheckContext, challenges: Challenge[], what: string) => {
  const nonces = noncesOf(challenges);
  if (nonces.length === 0) fail(`${what}: no Digest challenge with a nonce`);
  for (const nonce of nonces) {
    if (context.seenNonces.has(nonce)) fail(`${what}: nonce "${nonce}" was already sent in an earlier 401`);
  }
  for (const nonce of nonces) context.seenNonces.add(nonce);
};

export const expectBookBody = (response: HttpResponse, expected: BookFields, what: string, id?: number): Book => {
  const body = parseJson(response, what) as Record<string, unknown>;
  if (typeof body !== 'object' || body === null) return fail(`${what}: the body is not a book`);
  if (!Number.isSafeInteger(body.id) || (body.id as number) < 1) fail(`${what}: id ${JSON.stringify(body.id)}`);
  if (id !== undefined && body.id !== id) fail(`${what}: id ${body.id}, expected ${id}`);
  for (const [field, value] of Object.entries(expected)) {
    if (body[field] !== value)
      fail(`${what}: ${field} is ${JSON.stringify(body[field])}, expected ${JSON.stringify(value)}`);
  }
  for (const field of ['createdAt', 'updatedAt']) {
    if (!isIsoTimestamp(body[field])) fail(`${what}: ${field} ${JSON.stringify(body[field])} is not an ISO date-time`);
  }
  return body as unknown as Book;
};

export const fieldsOf = ({ title, author, isbn, publicationYear }: Book): BookFields => ({
  title,
  author,
  isbn,
  publicationYear,
});

export const bookAt = (context: CheckContext, index: number): Book =>
  context.books.current.get(context.books.ids()[index] as number) ?? fail('the book this check needs is gone');

export const expectArray = (response: HttpResponse, what: string): Record<string, unknown>[] => {
  expectStatus(response, 200, what);
  const body = parseJson(response, what);
  if (!Array.isArray(body)) return fail(`${what}: the body is not a JSON array`);
  return body as Record<string, unknown>[];
};

export const idsOf = (books: Record<string, unknown>[]) => books.map((book) => book.id);

/** The `rel="next"` target of a `Link` field, or undefined. */
export const nextLink = (field: string | null): string | undefined => {
  for (const link of (field ?? '').split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/s.exec(link);
    if (match && /;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(match[2] as string)) return match[1];
  }
  return undefined;
};

/** Sends a request that must be refused, recording any book a wrongly accepting server made. */
export const refusedCreate = async (context: CheckContext, headers: Record<string, string>, body: string | Buffer) => {
  const response = await context.http.send({
    method: 'POST',
    target: '/api/books',
    headers: withBasic(context, headers),
    body,
  });
  if (response.status === 201) {
    try {
      context.books.recordCreated(JSON.parse(response.text));
    } catch {
      // No id to record: the clean-up's sweep by the run's author finds the book.
    }
  }
  return response;
};
