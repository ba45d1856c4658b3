import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual, DIGEST_ALGORITHMS, type DigestAlgorithm } from './digest';

/** The name under which the deployment keeps the nonce HMAC key in its secret store (the auth table). */
export const NONCE_KEY_NAME = 'nonce-hmac-key';

const RANDOM_BYTES = 12;
const MAC_BYTES = 16;

export interface NonceClaims {
  issuedAt: number; // epoch seconds
  algorithm: DigestAlgorithm;
}

export type NonceCheck = { valid: false } | ({ valid: true; expired: boolean } & NonceClaims);

/**
 * Stateless Digest nonces: issue time, algorithm and randomness, HMAC-signed with the deployment's
 * secret. Any function instance can check one without a lookup, so a challenge writes nothing;
 * each (nonce, nc) pair is accepted once, enforced separately by the nonce ledger (ports.ts).
 *
 * The MAC also covers what the nonce was issued for and is not carried in it: the deployment (so a
 * nonce, or a used header, does not pass on another deployment that shares the key) and the
 * `binding` the caller gives (realm and opaque), so a nonce from realm `staging` fails in `books`.
 */
export class NonceCodec {
  constructor(
    private readonly secret: Buffer,
    private readonly lifetimeSeconds: number,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
    private readonly deployment = '',
  ) {}

  issue(algorithm: DigestAlgorithm, binding = ''): string {
    const payload = Buffer.alloc(8 + 1 + RANDOM_BYTES);
    payload.writeBigUInt64BE(BigInt(this.now()), 0);
    payload.writeUInt8(DIGEST_ALGORITHMS.indexOf(algorithm), 8);
    randomBytes(RANDOM_BYTES).copy(payload, 9);
    return Buffer.concat([payload, this.mac(payload, binding)]).toString('base64url');
  }

  check(nonce: string, binding = ''): NonceCheck {
    const raw = Buffer.from(nonce, 'base64url');
    if (raw.length !== 9 + RANDOM_BYTES + MAC_BYTES || raw.toString('base64url') !== nonce) return { valid: false };
    const payload = raw.subarray(0, 9 + RANDOM_BYTES);
    const mac = raw.subarray(9 + RANDOM_BYTES);
    if (!constantTimeEqual(mac.toString('hex'), this.mac(payload, binding).toString('hex'))) return { valid: false };
    const algorithm = DIGEST_ALGORITHMS[payload.readUInt8(8)];
    if (!algorithm) return { valid: false };
    const issuedAt = Number(payload.readBigUInt64BE(0));
    const age = this.now() - issuedAt;
    return { valid: true, issuedAt, algorithm, expired: age > this.lifetimeSeconds || age < -60 };
  }

  expiresAt(claims: NonceClaims): number {
    return claims.issuedAt + this.lifetimeSeconds;
  }

  private mac(payload: Buffer, binding: string) {
    return createHmac('sha256', this.secret)
      .update(payload)
      .update(JSON.stringify([this.deployment, binding]))
      .digest()
      .subarray(0, MAC_BYTES);
  }
}
