import { digestAuthorization as answerChallenge, basicAuthorization } from '../../tools/http-auth/digest';
import { DEMO } from './local-api';

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when there is none. */
  json: any;
}

export type Scheme = 'basic' | 'digest';

/** A Digest answer to a `WWW-Authenticate` field, from the client outside the service (tools/http-auth). */
export const digestAuthorization = (challenge: string, method: string, uri: string, user = DEMO): string => {
  const authorization = answerChallenge(challenge, user, method, uri);
  if (!authorization) throw new Error(`No Digest challenge this client can answer: ${challenge}`);
  return authorization;
};

const basic = (user = DEMO) => basicAuthorization(user);

/**
 * One request to the API, the body sent as JSON unless it is already a string (with a JSON
 * content type unless the headers name another), the answer read whole and parsed when not empty.
 */
export const sendRequest = async (
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> => {
  const sent = new Headers(headers);
  const init: RequestInit = { method, headers: sent };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    if (!sent.has('content-type')) sent.set('content-type', 'application/json');
  }
  const response = await fetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
};

/**
 * A JSON client of the local API that authenticates every call: Basic up front, or Digest by
 * answering the 401 challenge (two round trips, as real Digest clients do).
 */
export const apiClient = (baseUrl: string) => {
  const send = (
    method: string,
    path: string,
    body: unknown,
    authorization: string | undefined,
    headers: Record<string, string>,
  ) => sendRequest(baseUrl, method, path, body, authorization ? { ...headers, authorization } : headers);

  return {
    call: async (
      method: string,
      path: string,
      body?: unknown,
      scheme: Scheme = 'basic',
      headers: Record<string, string> = {},
    ): Promise<ApiResponse> => {
      if (scheme === 'basic') return send(method, path, body, basic(), headers);
      const challenged = await send(method, path, body, undefined, headers);
      const challenge = challenged.headers.get('www-authenticate');
      if (challenged.status !== 401 || !challenge) return challenged;
      return send(method, path, body, digestAuthorization(challenge, method, path), headers);
    },
  };
};
