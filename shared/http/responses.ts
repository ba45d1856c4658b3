import type { FieldErrors } from '../books/types';
import { PayloadTooLargeError } from './errors';
import { MAX_BODY_BYTES } from './json-body';
import type { HttpResponse } from './types';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

export const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse => ({
  statusCode,
  headers: { ...JSON_HEADERS, ...headers },
  body: JSON.stringify(body),
});

/** 204, 404 and 409 carry no body at all. */
export const empty = (statusCode: number): HttpResponse => ({ statusCode, headers: {}, body: '' });

export const ok = (body: unknown, headers: Record<string, string> = {}) => json(200, body, headers);

/** 200 with a body that is already JSON text. */
export const okJsonText = (body: string): HttpResponse => ({ statusCode: 200, headers: { ...JSON_HEADERS }, body });

export const created = (body: unknown, location: string, headers: Record<string, string> = {}) =>
  json(201, body, { Location: location, ...headers });

/** 304: the client's copy is current; the validator again, and no body (RFC 9110 §15.4.5). */
export const notModified = (etag: string): HttpResponse => ({ statusCode: 304, headers: { ETag: etag }, body: '' });

export const noContent = () => empty(204);

/** 301 to another address of the same resource; a relative `location` keeps the stage path. */
export const redirect = (location: string): HttpResponse => ({
  statusCode: 301,
  headers: { Location: location },
  body: '',
});

const timestamp = () => new Date().toISOString();

/** The spec's 400 body. */
export const validationFailure = (errors: FieldErrors) => json(400, { timestamp: timestamp(), status: 400, errors });

/** The spec's shape for every other error with a body (412, 413, 415, 422, 428, 500, 503). */
export const failure = (status: number, message: string, headers: Record<string, string> = {}) =>
  json(status, { timestamp: timestamp(), status, message }, headers);

export const METHOD_NOT_ALLOWED_MESSAGE = 'This method is not allowed on this path; Allow lists the ones it takes';

/** 405 for a known path asked with another method (RFC 9110 §15.5.6): `Allow` lists the path's methods. */
export const methodNotAllowed = (allow: string) => failure(405, METHOD_NOT_ALLOWED_MESSAGE, { Allow: allow });

export const CONTENDED_WRITE_MESSAGE =
  'The book is being changed by other requests at this moment; nothing was written, try again';

/** Seconds a client is asked to wait before it repeats a write that lost its races. */
export const CONTENDED_RETRY_AFTER_SECONDS = 1;

/** A write that kept losing races until its retries ran out: nothing written, worth repeating shortly. */
export const contendedWrite = () =>
  failure(503, CONTENDED_WRITE_MESSAGE, { 'Retry-After': String(CONTENDED_RETRY_AFTER_SECONDS) });

export const STORE_NOT_READY_MESSAGE = 'The service is being upgraded and cannot serve books at this moment; try again';

/** Seconds a client is asked to wait while an operator finishes an upgrade step. */
export const STORE_NOT_READY_RETRY_AFTER_SECONDS = 30;

/** The data is not yet in a shape this version serves (an upgrade step is due): nothing done, try later. */
export const storeNotReady = () =>
  failure(503, STORE_NOT_READY_MESSAGE, { 'Retry-After': String(STORE_NOT_READY_RETRY_AFTER_SECONDS) });

export const INTERNAL_ERROR_MESSAGE = 'An unexpected error occurred';

/** The authorizer could not check the credentials (the account store throttled or failed): try again. */
export const AUTHENTICATION_UNAVAILABLE_MESSAGE = 'Credentials cannot be checked at this moment; try again';

/** Seconds a client is asked to wait when its credentials could not be checked. */
export const AUTHENTICATION_RETRY_AFTER_SECONDS = 1;

/**
 * A body the gateway refuses itself (past its 10 MB, or past Lambda's invoke payload once base64-encoded):
 * the handlers' own 413 message, since whichever refuses it the client broke the same 64 KiB rule.
 */
export const GATEWAY_BODY_TOO_LARGE_MESSAGE = new PayloadTooLargeError(MAX_BODY_BYTES).message;

/** The function did not answer within the integration's timeout (API Gateway's INTEGRATION_TIMEOUT, 504). */
export const GATEWAY_TIMEOUT_MESSAGE = 'The service did not answer in time';

export const internalError = () => failure(500, INTERNAL_ERROR_MESSAGE);
