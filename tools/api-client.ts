import { randomBytes } from 'node:crypto';
import { parseAuthorization } from '../shared/auth/authorization-header';
import { type DigestAlgorithm, digestResponse, ha1 } from '../shared/auth/digest';

export type AuthScheme = 'basic' | 'digest';

export interface ApiCredentials {
  username: string;
  password: string;
  scheme: AuthScheme;
}

export class ApiUnreachableError extends Error {
  override readonly name = 'ApiUnreachableError';
}

/** Several challenges may share one WWW-Authenticate field (RFC 9110 §11.6.1); ours are all Digest. */
const digestChallenges = (header: string): Map<string, string>[] =>
  header
    .split(/,\s*(?=Digest\s)/i)
    .map((challenge) => parseAuthorization(challenge))
    .flatMap((parsed) => (parsed.scheme === 'digest' ? [new Map(parsed.params)] : []));

/**
 * Answers a Digest challenge (RFC 7616, qop=auth), preferring SHA-256 when it is offered. The hashes
 * are the project's own (shared/auth/digest.ts), the ones the authorizer checks against.
 */
const digestAuthorization = (header: string, method: string, uri: string, credentials: ApiCredentials): string => {
  const challenges = digestChallenges(header);
  const challenge = challenges.find((c) => c.get('algorithm') === 'SHA-256') ?? challenges[0];
  if (!challenge) throw new Error(`the server offered no Digest challenge: ${header}`);
  const algorithm = (challenge.get('algorithm') ?? 'MD5') as DigestAlgorithm;
  const realm = challenge.get('realm') ?? '';
  const nonce = challenge.get('nonce') ?? '';
  const qop = { qop: 'auth' as const, nc: '00000001', cnonce: randomBytes(12).toString('hex') };
  const secret = ha1(algorithm, credentials.username, realm, credentials.password);
  const response = digestResponse({ algorithm, ha1: secret, method, uri, nonce, qop });
  const opaque = challenge.get('opaque');
  return [
    `Digest username="${credentials.username}"`,
    `realm="${realm}"`,
    `nonce="${nonce}"`,
    `uri="${uri}"`,
    `algorithm=${algorithm}`,
    `qop=auth, nc=${qop.nc}, cnonce="${qop.cnonce}"`,
    `response="${response}"`,
    ...(opaque === undefined ? [] : [`opaque="${opaque}"`]),
  ].join(', ');
};

/**
 * A JSON client of the book API for the command-line tools: Basic up front, or Digest by answering
 * the 401 challenge (two round trips per call, since every nonce is single-use).
 */
export const createApiClient = (baseUrl: string, credentials: ApiCredentials) => {
  const base = baseUrl.replace(/\/+$/, '');
  const send = async (method: string, path: string, body: unknown, authorization?: string) => {
    const headers: Record<string, string> = {};
    if (authorization) headers.authorization = authorization;
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await fetch(`${base}${path}`, {
        method,
        headers,
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new ApiUnreachableError(`cannot reach ${base}`, { cause: error });
    }
  };
  const basic = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;

  return {
    request: async (method: string, path: string, body?: unknown): Promise<Response> => {
      if (credentials.scheme === 'basic') return send(method, path, body, basic);
      const challenged = await send(method, path, body);
      const challenge = challenged.headers.get('www-authenticate');
      if (challenged.status !== 401 || !challenge) return challenged;
      await challenged.arrayBuffer();
      const url = new URL(`${base}${path}`);
      const authorization = digestAuthorization(challenge, method, `${url.pathname}${url.search}`, credentials);
      return send(method, path, body, authorization);
    },
  };
};
