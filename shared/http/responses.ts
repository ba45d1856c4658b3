import type { FieldErrors } from '../books/types';
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

const timestamp = () => new Date().toISOString();

/** The spec's 400 body. */
export const validationFailure = (errors: FieldErrors) => json(400, { timestamp: timestamp(), status: 400, errors });

/** The spec's shape for every other error with a body (412, 413, 415, 422, 428, 500, ...). */
export const failure = (status: number, message: string, headers: Record<string, string> = {}) =>
  json(status, { timestamp: timestamp(), status, message }, headers);

export const INTERNAL_ERROR_MESSAGE = 'An unexpected error occurred';

export const internalError = () => failure(500, INTERNAL_ERROR_MESSAGE);
