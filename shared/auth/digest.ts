import { createHash, timingSafeEqual } from 'node:crypto';

export type DigestAlgorithm = 'MD5' | 'SHA-256';

export const DIGEST_ALGORITHMS: readonly DigestAlgorithm[] = ['MD5', 'SHA-256'];

/**
 * The default Digest offer: MD5 alone, chosen by the client matrix (docs/security.md#clients): with a
 * second Digest challenge in the field, Python's urllib and Node's urllib package fail.
 */
export const DEFAULT_DIGEST_OFFER: readonly DigestAlgorithm[] = ['MD5'];

/**
 * A Digest offer as configured (`DIGEST_ALGORITHM`, the `digestAlgorithm` stack option): one
 * algorithm, or several separated by commas in the order they are offered; empty means the default.
 * Undefined when the text names an unknown algorithm or repeats one.
 */
export const parseDigestOffer = (text: string | undefined): readonly DigestAlgorithm[] | undefined => {
  if (!text?.trim()) return DEFAULT_DIGEST_OFFER;
  const names = text.split(',').map((name) => name.trim().toUpperCase());
  const offer = names.filter((name): name is DigestAlgorithm =>
    (DIGEST_ALGORITHMS as readonly string[]).includes(name),
  );
  return offer.length === names.length && new Set(offer).size === offer.length ? offer : undefined;
};

const NODE_HASH: Record<DigestAlgorithm, string> = { MD5: 'md5', 'SHA-256': 'sha256' };

/** Lower-case hex digest, as RFC 7616 writes every hash. */
export const hash = (algorithm: DigestAlgorithm, data: string): string =>
  createHash(NODE_HASH[algorithm]).update(data, 'utf8').digest('hex');

/** HA1 = H(username:realm:password): what the user store keeps instead of the password. */
export const ha1 = (algorithm: DigestAlgorithm, username: string, realm: string, password: string) =>
  hash(algorithm, `${username}:${realm}:${password}`);

export interface DigestResponseInput {
  algorithm: DigestAlgorithm;
  ha1: string;
  method: string;
  uri: string;
  nonce: string;
  /** Absent in the legacy RFC 2069 form the spec shows. */
  qop?: { qop: 'auth'; nc: string; cnonce: string };
}

/** The `response` a client must send: RFC 7616 §3.4.1, or RFC 2069 without qop. */
export const digestResponse = ({ algorithm, ha1: secret, method, uri, nonce, qop }: DigestResponseInput): string => {
  const ha2 = hash(algorithm, `${method}:${uri}`);
  return qop
    ? hash(algorithm, `${secret}:${nonce}:${qop.nc}:${qop.cnonce}:${qop.qop}:${ha2}`)
    : hash(algorithm, `${secret}:${nonce}:${ha2}`);
};

/** Compares two strings without leaking where they differ through timing. */
export const constantTimeEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // Compare equal-length buffers even on a length mismatch, so the time does not depend on it.
  return timingSafeEqual(left, left.length === right.length ? right : left) && left.length === right.length;
};
