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

export const ok = (body: unknown) => json(200, body);

/** 200 with a body that is already JSON text. */
export const okJsonText = (body: string): HttpResponse => ({ statusCode: 200, headers: { ...JSON_HEADERS }, body });

export const created = (body: unknown, location: string) => json(201, body, { Location: location });

export const noContent = () => empty(204);

const timestamp = () => new Date().toISOString();

/** The spec's 400 body. */
export const validationFailure = (errors: FieldErrors) => json(400, { timestamp: timestamp(), status: 400, errors });

/** The spec's shape for every other error with a body (413, 415, 500). */
export const failure = (status: number, message: string) => json(status, { timestamp: timestamp(), status, message });

export const INTERNAL_ERROR_MESSAGE = 'An unexpected error occurred';

export const internalError = () => failure(500, INTERNAL_ERROR_MESSAGE);
