import type { DigestAlgorithm } from './digest';
import type { FailureRecord } from './lockout';

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

/** What one read of an account name finds: its user, if one is stored, and its failure record, if any. */
export interface Account {
  /** The stored user, whatever its realm. */
  user?: StoredUser;
  failures?: FailureRecord;
}

/**
 * Users and their failure records, kept together so that the authorizer reads both with one
 * request: a success costs no more than the user lookup alone. A name that is nobody's has a
 * failure record too (it may expire), and never a user.
 */
export interface AccountStore {
  /** One read; `latest` asks for a strongly consistent one (after a lost race). */
  account(username: string, latest?: boolean): Promise<Account>;
  /**
   * Replaces the failure record with `next` if it is still the one `read` found (by version), in
   * one conditional write; false, writing nothing, when another container changed it first.
   */
  replaceFailures(username: string, read: Account, next: FailureRecord, expiresAtSeconds: number): Promise<boolean>;
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

export interface AuthDenial {
  ok: false;
  challenge: string;
  reason: string;
  /** This failure locked the account (counted by the lockout metric). */
  lockoutStarted?: boolean;
}

export type AuthResult =
  | {
      ok: true;
      username: string;
      scheme: 'basic' | 'digest';
      /** For Digest: the `Authentication-Info` value (next nonce, server proof) the response carries. */
      authenticationInfo?: string;
    }
  | AuthDenial;
