import { ANSWER_LIMIT_BYTES, AnswerTooLargeError, readBounded, WHOLE_LIST_LIMIT_BYTES } from '../untrusted-server';
import type { Credentials, HttpClient, HttpRequest, HttpResponse } from './types';

/** A request that did not complete: no connection, a timeout, or a body whose transfer broke off. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
}

/** The run was interrupted (SIGINT, SIGTERM): requests in flight are abandoned. */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
}

/** Most answers are small; the whole list streams, 2 MB/s on AWS past its first 6 MB. */
const REQUEST_TIMEOUT_MS = 30_000;
const WHOLE_LIST_TIMEOUT_MS = 10 * 60_000;

/** The unpaged list's allowance: its time, and Lambda's 200 MB for a streamed answer rather than the usual 1 MiB. */
export const WHOLE_LIST = { timeoutMs: WHOLE_LIST_TIMEOUT_MS, maxBytes: WHOLE_LIST_LIMIT_BYTES } as const;

const reasonOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
};

export const basicAuthorization = ({ username, password }: Credentials) =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;

/**
 * Node's fetch, with the base URL's path (the stage) kept in front of every route, redirects
 * reported rather than followed, nothing sent to another origin, each body read up to its limit
 * (AnswerTooLargeError past it), and every failure to complete a request, the body's transfer
 * included, as a TransportError. `signal` ends every request at once when the run is interrupted.
 */
export const httpClient = (baseUrl: string, signal: AbortSignal): HttpClient => {
  const urlOf = (target: string) => (/^https?:\/\//i.test(target) ? target : `${baseUrl}${target}`);

  const send = async ({
    method = 'GET',
    target,
    headers = {},
    body,
    timeoutMs = REQUEST_TIMEOUT_MS,
    maxBytes = ANSWER_LIMIT_BYTES,
  }: HttpRequest): Promise<HttpResponse> => {
    const url = urlOf(target);
    // An absolute target is one the server wrote (a Link): the credentials never follow it elsewhere.
    if (new URL(url).origin !== new URL(baseUrl).origin)
      throw new TransportError(`${method} ${url}: not sent, another origin than ${baseUrl}`);
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    const fail = (stage: string, error: unknown): never => {
      if (signal.aborted) throw new InterruptedError('interrupted', { cause: error });
      if (deadline.aborted) throw new TransportError(`${method} ${url}: no complete answer within ${timeoutMs} ms`);
      throw new TransportError(`${method} ${url}: ${stage} (${reasonOf(error)})`, { cause: error });
    };
    const response = await fetch(url, {
      method,
      headers,
      ...(body !== undefined && { body }),
      redirect: 'manual',
      signal: deadline,
    }).catch((error) => fail('no answer', error));
    const text = await readBounded(response, maxBytes, `${method} ${url}`).catch((error) =>
      error instanceof AnswerTooLargeError ? Promise.reject(error) : fail('the body broke off before its end', error),
    );
    return { status: response.status, headers: response.headers, text };
  };

  return { urlOf, send };
};
