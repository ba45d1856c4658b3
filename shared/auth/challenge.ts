import type { DigestAlgorithm } from './digest';

/**
 * Where the contract's `Basic realm="<realm>"` challenge stands in the one `WWW-Authenticate` field
 * (a gateway response can carry one field only): after the Digest challenges, before them, or left
 * out for clients that read one Digest challenge per field. docs/security.md#clients has the measured
 * client matrix that chose the default and what each placement gains and loses.
 */
export type BasicChallengePlacement = 'last' | 'first' | 'none';

const BASIC_CHALLENGE_PLACEMENTS: readonly BasicChallengePlacement[] = ['last', 'first', 'none'];

/** The default, chosen by the client matrix (test/clients/auth-client-matrix.test.ts asserts it wins). */
export const DEFAULT_BASIC_CHALLENGE: BasicChallengePlacement = 'last';

/**
 * The placement as configured (`BASIC_CHALLENGE`, the `basicChallenge` stack option); empty means
 * the default. Undefined when the text names no placement.
 */
export const parseBasicChallenge = (text: string | undefined): BasicChallengePlacement | undefined => {
  const name = text?.trim().toLowerCase();
  if (!name) return DEFAULT_BASIC_CHALLENGE;
  return BASIC_CHALLENGE_PLACEMENTS.find((placement) => placement === name);
};

export const quote = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;

export interface DigestChallengeParams {
  realm: string;
  algorithm: DigestAlgorithm;
  nonce: string;
  opaque: string;
  stale: boolean;
}

/** One Digest challenge (RFC 7616 §3.3), announcing UTF-8 for names and passwords (§4). */
export const digestChallenge = ({ realm, algorithm, nonce, opaque, stale }: DigestChallengeParams): string =>
  `Digest realm=${quote(realm)}, qop="auth", algorithm=${algorithm}, nonce="${nonce}", opaque="${opaque}", ` +
  `charset="UTF-8"${stale ? ', stale=true' : ''}`;

/** The contract's Basic challenge, exactly as the contract writes it. */
export const basicChallenge = (realm: string): string => `Basic realm=${quote(realm)}, charset="UTF-8"`;

/**
 * The one field value: the Digest challenges in the order offered, and the Basic challenge where
 * the placement puts it (RFC 9110 §11.6.1 allows several challenges in one field).
 */
export const composeChallenge = (realm: string, digest: readonly string[], placement: BasicChallengePlacement) => {
  const basic = placement === 'none' ? [] : [basicChallenge(realm)];
  return (placement === 'first' ? [...basic, ...digest] : [...digest, ...basic]).join(', ');
};
