import { createHash, randomBytes } from 'node:crypto';
import { DEMO } from './local-api';

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when there is none. */
  json: any;
}

export type Scheme = 'basic' | 'digest';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/**
 * A Digest (RFC 7616, qop=auth, MD5) answer to a challenge, written independently of the code under
 * test so a shared mistake cannot hide.
 */
export const digestAuthorization = (challenge: string, method: string, uri: string, user = DEMO): string => {
  const param = (name: string) => new RegExp(`${name}="?([^",]+)"?`).exec(challenge)?.[1] ?? '';
  const [realm, nonce, opaque] = [param('realm'), param('nonce'), param('opaque')];
  const cnonce = randomBytes(8).toString('hex');
  const ha1 = md5(`${user.username}:${realm}:${user.password}`);
  const response = md5(`${ha1}:${nonce}:00000001:${cnonce}:auth:${md5(`${method}:${uri}`)}`);
  const quoted = uri.replace(/["\\]/g, '\\$&'); // a quoted-string escapes " and \ (RFC 9110 §5.6.4)
  return `Digest username="${user.username}", realm="${realm}", nonce="${nonce}", uri="${quoted}", qop=auth, nc=00000001, cnonce="${cnonce}", response="${response}", opaque="${opaque}"`;
};

const basic = (user = DEMO) => `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`;

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
