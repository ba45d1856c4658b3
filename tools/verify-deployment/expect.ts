import { isDeepStrictEqual } from 'node:util';
import type { HttpResponse } from './types';

/** What a check saw that the contract does not allow. */
class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
}

export const fail = (message: string): never => {
  throw new CheckFailure(message);
};

const excerpt = (text: string, length = 160) => {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
};

export const expectStatus = (response: HttpResponse, status: number, what: string) => {
  if (response.status !== status)
    fail(
      `${what}: expected ${status}, got ${response.status}${response.text ? ` with ${excerpt(response.text)}` : ''}`,
    );
};

export const expectNoBody = (response: HttpResponse, what: string) => {
  if (response.text !== '') fail(`${what}: expected no body, got ${excerpt(response.text)}`);
};

/** The body as JSON, parsed whole: a body cut short fails here, however it ended. */
export const parseJson = (response: HttpResponse, what: string): unknown => {
  try {
    return JSON.parse(response.text);
  } catch (error) {
    const tail = response.text.slice(-40).replace(/\s+/g, ' ');
    return fail(
      `${what}: the body is not complete JSON (${(error as Error).message}); ${Buffer.byteLength(response.text)} bytes ending "${tail}"`,
    );
  }
};

/** ISO 8601 in UTC with milliseconds, as the contract writes every timestamp. */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const isIsoTimestamp = (value: unknown) =>
  typeof value === 'string' && ISO_TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value));

export type ErrorBodyExpectation = { message: string } | { errors: Record<string, string> };

/** `{timestamp, status, message}` or `{timestamp, status, errors}`: these keys and no others, as the contract writes them. */
export const expectErrorBody = (
  response: HttpResponse,
  status: number,
  expected: ErrorBodyExpectation,
  what: string,
) => {
  expectStatus(response, status, what);
  const type = response.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) fail(`${what}: Content-Type is "${type}", not application/json`);
  const body = parseJson(response, what);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return fail(`${what}: the body is not an object`);
  const record = body as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  const wanted = ['status', 'timestamp', ...Object.keys(expected)].sort();
  if (!isDeepStrictEqual(keys, wanted))
    fail(`${what}: body keys are ${keys.join(', ')}; the contract has ${wanted.join(', ')}`);
  if (record.status !== status) fail(`${what}: body status is ${JSON.stringify(record.status)}, not ${status}`);
  if (!isIsoTimestamp(record.timestamp))
    fail(`${what}: timestamp ${JSON.stringify(record.timestamp)} is not an ISO 8601 date-time in UTC`);
  const [key, value] = Object.entries(expected)[0] as [string, unknown];
  if (!isDeepStrictEqual(record[key], value))
    fail(`${what}: ${key} is ${JSON.stringify(record[key])}, expected ${JSON.stringify(value)}`);
};

/**
 * Whether a URL the API wrote is absolute and names `path` under the base URL: same origin, the
 * base's path (the stage) in front. Fails with what it found otherwise.
 */
export const expectUnderBase = (baseUrl: string, written: string | null, path: string, what: string): URL => {
  if (!written) return fail(`${what}: missing`);
  if (!URL.canParse(written)) return fail(`${what}: "${written}" is not an absolute URL`);
  const url = new URL(written);
  const base = new URL(baseUrl);
  const wantedPath = `${base.pathname.replace(/\/+$/, '')}${path}`;
  if (url.origin !== base.origin)
    fail(
      `${what}: "${written}" is on ${url.origin}, not ${base.origin}: behind a CDN or proxy, deploy with ` +
        `-c publicBaseUrl=${base.origin}${base.pathname.replace(/\/+$/, '')} (PUBLIC_BASE_URL for npm start)`,
    );
  if (url.pathname !== wantedPath) fail(`${what}: "${written}" is not ${base.origin}${wantedPath}`);
  return url;
};

/**
 * An answer API Gateway writes itself: `{status, message}` as the stack's gateway response gives it
 * (no timestamp: a gateway template cannot write an ISO 8601 date), or with one, as `npm start` does.
 */
export const expectGatewayErrorBody = (response: HttpResponse, status: number, message: string, what: string) => {
  expectStatus(response, status, what);
  const body = parseJson(response, what) as Record<string, unknown> | null;
  const { timestamp, ...rest } = typeof body === 'object' && body !== null ? body : {};
  if (!isDeepStrictEqual(rest, { status, message }))
    fail(`${what}: body is ${excerpt(response.text)}, expected {status: ${status}, message: "${message}"}`);
  if (timestamp !== undefined && !isIsoTimestamp(timestamp))
    fail(`${what}: timestamp ${JSON.stringify(timestamp)} is not an ISO 8601 date-time in UTC`);
  if (response.headers.get('cache-control') !== 'no-store') fail(`${what}: Cache-Control is not no-store`);
};
