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
export const REQUEST_TIMEOUT_MS = 30_000;
export const WHOLE_LIST_TIMEOUT_MS = 10 * 60_000;

const reasonOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
};

export const basicAuthorization = ({ username, password }: Credentials) =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;

/**
 * Node's fetch, with the base URL's path (the stage) kept in front of every route, redirects
 * reported rather than followed, and every failure to complete a request, the body's transfer
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
  }: HttpRequest): Promise<HttpResponse> => {
    const url = urlOf(target);
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
    const text = await response.text().catch((error) => fail('the body broke off before its end', error));
    return { status: response.status, headers: response.headers, text };
  };

  return { urlOf, send };
};
