import { randomBytes } from 'node:crypto';
import { type DigestAlgorithm, digestResponse, ha1 } from '../shared/auth/digest';
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

/** The first Digest challenge of a WWW-Authenticate value whose algorithm this client speaks. */
const parseChallenge = (header: string) => {
  for (const part of header.split(/,\s*(?=Digest\s)/i)) {
    const param = (name: string) => new RegExp(`${name}="?([^",]+)"?`, 'i').exec(part)?.[1];
    const algorithm = (param('algorithm') ?? 'MD5').toUpperCase();
    if (algorithm !== 'MD5' && algorithm !== 'SHA-256') continue;
    return { realm: param('realm') ?? '', nonce: param('nonce') ?? '', opaque: param('opaque'), algorithm };
  }
  return undefined;
};

/**
 * A small client of the API for the command-line tools: Basic sent up front, Digest by answering the
 * 401 challenge (RFC 7616, qop=auth) with the project's own digest functions. Answers are read up
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

  const digestAuthorization = (header: string, method: string, uri: string): string | undefined => {
    const challenge = parseChallenge(header);
    if (!challenge) return undefined;
    const algorithm = challenge.algorithm as DigestAlgorithm;
    const cnonce = randomBytes(8).toString('hex');
    const qop = { qop: 'auth' as const, nc: '00000001', cnonce };
    const secret = ha1(algorithm, credentials.username, challenge.realm, credentials.password);
    const response = digestResponse({ algorithm, ha1: secret, method, uri, nonce: challenge.nonce, qop });
    const quote = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;
    return [
      `Digest username=${quote(credentials.username)}`,
      `realm=${quote(challenge.realm)}`,
      `nonce=${quote(challenge.nonce)}`,
      `uri=${quote(uri)}`,
      `algorithm=${algorithm}`,
      'qop=auth',
      'nc=00000001',
      `cnonce="${cnonce}"`,
      `response="${response}"`,
      ...(challenge.opaque ? [`opaque=${quote(challenge.opaque)}`] : []),
    ].join(', ');
  };

  return {
    call: async (method: string, path: string, body?: unknown): Promise<ApiResponse> => {
      if (credentials.scheme === 'basic') {
        const token = Buffer.from(`${credentials.username}:${credentials.password}`, 'utf8').toString('base64');
        return send(method, path, body, `Basic ${token}`);
      }
      const challenged = await send(method, path, body);
      const header = challenged.headers.get('www-authenticate');
      if (challenged.status !== 401 || !header) return challenged;
      const url = new URL(path, baseUrl);
      const authorization = digestAuthorization(header, method, `${url.pathname}${url.search}`);
      return authorization ? send(method, path, body, authorization) : challenged;
    },
  };
};
