import { basicAuthorization, digestAuthorization } from './http-auth/digest';
import { ANSWER_LIMIT_BYTES, readBounded } from './untrusted-server';

export type AuthScheme = 'basic' | 'digest';

export interface Credentials {
  username: string;
  password: string;
  scheme: AuthScheme;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * A small client of the API for the command-line tools: Basic sent up front, Digest by answering the
 * 401 challenge (RFC 7616, qop=auth) with the independent client of ./http-auth. Answers are read up
 * to ANSWER_LIMIT_BYTES (AnswerTooLargeError past it), redirects not followed. Node's fetch speaks
 * neither scheme itself, and one request at a time does not justify a dependency.
 */
export const apiClient = (baseUrl: string, credentials: Credentials) => {
  const send = async (method: string, path: string, body: unknown, authorization?: string): Promise<ApiResponse> => {
    const headers: Record<string, string> = {};
    if (authorization) headers.Authorization = authorization;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const url = new URL(path, baseUrl);
    const response = await fetch(url, {
      method,
      headers,
      redirect: 'manual', // a redirect would carry the credentials wherever the server says
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await readBounded(response, ANSWER_LIMIT_BYTES, `${method} ${url}`);
    return { status: response.status, headers: response.headers, body: text };
  };

  return {
    call: async (method: string, path: string, body?: unknown): Promise<ApiResponse> => {
      if (credentials.scheme === 'basic') return send(method, path, body, basicAuthorization(credentials));
      const challenged = await send(method, path, body);
      const header = challenged.headers.get('www-authenticate');
      if (challenged.status !== 401 || !header) return challenged;
      const url = new URL(path, baseUrl);
      const authorization = digestAuthorization(header, credentials, method, `${url.pathname}${url.search}`);
      return authorization ? send(method, path, body, authorization) : challenged;
    },
  };
};
