import type { DigestAlgorithm } from './digest';

/** A user as stored: HA1 per Digest algorithm for one realm, never the password. */
export interface StoredUser {
  username: string;
  realm: string;
  ha1: Record<DigestAlgorithm, string>;
}

/** Users, as the authorizer and the users tool need them. */
export interface UserStore {
  get(username: string): Promise<StoredUser | undefined>;
  put(user: StoredUser): Promise<void>;
  /** false when there was no such user. */
  delete(username: string): Promise<boolean>;
  list(): Promise<StoredUser[]>;
}

/** Records spent Digest nonces, so each is accepted once across every function instance. */
export interface NonceLedger {
  /** true the first time a nonce is spent, false ever after (until it expires from the ledger). */
  spend(nonce: string, expiresAtEpochSeconds: number): Promise<boolean>;
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
