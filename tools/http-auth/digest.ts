import { createHash, randomBytes } from 'node:crypto';
import { type Challenge, challengesOf, parseChallenges } from './challenges';

/**
 * The one Digest client of the tools, the benchmark and the tests, written from RFC 7616 alone, with
 * node:crypto and none of the service's own code: a mistake shared by the server's computation and
 * a client built from it would otherwise pass unnoticed.
 */

export interface Credentials {
  username: string;
  password: string;
}

/** A challenge this client cannot answer: an algorithm it does not know, or no `qop="auth"`. */
class UnanswerableChallengeError extends Error {
  override readonly name = 'UnanswerableChallengeError';
}

/** RFC 7616 §3.3's algorithms, each also in its `-sess` form. */
const NODE_HASHES: Record<string, string> = { MD5: 'md5', 'SHA-256': 'sha256', 'SHA-512-256': 'sha512-256' };

export interface DigestAlgorithm {
  /** As the challenge wrote it, and as the credentials must repeat it. */
  name: string;
  nodeHash: string;
  session: boolean;
}

/** The challenge's algorithm (MD5 when absent, RFC 7616 §3.3), or undefined when this client does not know it. */
export const algorithmOf = (challenge: Challenge): DigestAlgorithm | undefined => {
  const name = challenge.params.algorithm ?? 'MD5';
  const upper = name.toUpperCase();
  const session = upper.endsWith('-SESS');
  const nodeHash = NODE_HASHES[session ? upper.slice(0, -'-SESS'.length) : upper];
  return nodeHash ? { name, nodeHash, session } : undefined;
};

const offersAuth = (challenge: Challenge): boolean =>
  (challenge.params.qop ?? '')
    .split(',')
    .map((option) => option.trim().toLowerCase())
    .includes('auth');

const quote = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;

/** RFC 8187's ext-value, for a user name a quoted-string cannot carry as it is (RFC 7616 §3.4.4). */
const extValue = (text: string) =>
  `UTF-8''${encodeURIComponent(text).replace(/['()*!]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)}`;

export interface DigestAnswer {
  authorization: string;
  nc: string;
  cnonce: string;
  /** The server's proof this answer must come back with (RFC 7616 §3.5: A2 with an empty method). */
  rspauth: string;
}

export interface DigestRequest {
  challenge: Challenge;
  credentials: Credentials;
  method: string;
  /** The request target as sent: path and query. */
  uri: string;
  /** The nonce count, 1 for a nonce's first use. */
  nc?: number;
  cnonce?: string;
}

/** The `Authorization` value answering a Digest challenge with `qop=auth` (RFC 7616 §3.4). */
export const answerDigest = ({ challenge, credentials, method, uri, nc = 1, cnonce }: DigestRequest): DigestAnswer => {
  const algorithm = algorithmOf(challenge);
  if (!algorithm) throw new UnanswerableChallengeError(`unknown algorithm ${challenge.params.algorithm}`);
  if (!offersAuth(challenge))
    throw new UnanswerableChallengeError(`no qop="auth" offered (qop=${challenge.params.qop})`);
  const { realm = '', nonce = '', opaque } = challenge.params;
  const hash = (text: string) => createHash(algorithm.nodeHash).update(text, 'utf8').digest('hex');
  const clientNonce = cnonce ?? randomBytes(16).toString('hex');
  const count = nc.toString(16).padStart(8, '0');
  const secret = hash(`${credentials.username}:${realm}:${credentials.password}`);
  const ha1 = algorithm.session ? hash(`${secret}:${nonce}:${clientNonce}`) : secret;
  const ha2 = hash(`${method}:${uri}`);
  const userhash = challenge.params.userhash?.toLowerCase() === 'true';
  const username = userhash
    ? `username=${quote(hash(`${credentials.username}:${realm}`))}`
    : /^[\x20-\x7e]*$/.test(credentials.username)
      ? `username=${quote(credentials.username)}`
      : `username*=${extValue(credentials.username)}`;
  const authorization = [
    `Digest ${username}`,
    `realm=${quote(realm)}`,
    `uri=${quote(uri)}`,
    `algorithm=${algorithm.name}`,
    `nonce=${quote(nonce)}`,
    `nc=${count}`,
    `cnonce=${quote(clientNonce)}`,
    'qop=auth',
    `response="${hash(`${ha1}:${nonce}:${count}:${clientNonce}:auth:${ha2}`)}"`,
    ...(opaque !== undefined ? [`opaque=${quote(opaque)}`] : []),
    ...(userhash ? ['userhash=true'] : []),
  ].join(', ');
  const rspauth = hash(`${ha1}:${nonce}:${count}:${clientNonce}:auth:${hash(`:${uri}`)}`);
  return { authorization, nc: count, cnonce: clientNonce, rspauth };
};

/** `Basic` credentials (RFC 7617), the name and password in UTF-8. */
export const basicAuthorization = ({ username, password }: Credentials): string =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;

/**
 * The `Authorization` answering the first Digest challenge of a `WWW-Authenticate` field that this
 * client can answer (a known algorithm, `qop="auth"` offered); undefined when there is none.
 */
export const digestAuthorization = (
  field: string | null | undefined,
  credentials: Credentials,
  method: string,
  uri: string,
): string | undefined => {
  const challenge = challengesOf(parseChallenges(field), 'digest').find(
    (offered) => algorithmOf(offered) !== undefined && offersAuth(offered),
  );
  return challenge && answerDigest({ challenge, credentials, method, uri }).authorization;
};
