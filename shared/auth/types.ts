import type { DigestAlgorithm } from './digest';

/** A user as stored: HA1 per Digest algorithm for one realm, never the password. */
export interface StoredUser {
  username: string;
  realm: string;
  ha1: Record<DigestAlgorithm, string>;
}

/** The parts of an HTTP request authentication looks at. */
export interface AuthRequest {
  method: string;
  /** The path the client addressed, stage or base path included. */
  path: string;
  /** Decoded query parameters, every value of each. */
  query: Record<string, string[] | undefined>;
  /** The Authorization field, or every one the request carries when it repeats it. */
  authorization: string | readonly string[] | undefined;
}

export type AuthResult =
  | {
      ok: true;
      username: string;
      scheme: 'basic' | 'digest';
      /** For Digest: the `Authentication-Info` value (next nonce, server proof) the response carries. */
      authenticationInfo?: string;
    }
  | { ok: false; challenge: string; reason: string };
