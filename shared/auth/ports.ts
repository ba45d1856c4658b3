import type { AccountFailures } from './account-failures';
import type { Account, StoredUser } from './types';

/*
 * The ports through which authentication reaches storage; the adapters (shared/store) implement
 * them, the composition root (functions/authorizer/wiring.ts) picks the adapters.
 */

/** Users, as the authorizer and the users tool need them. */
export interface UserStore {
  get(username: string): Promise<StoredUser | undefined>;
  put(user: StoredUser): Promise<void>;
  /** false when there was no such user. */
  delete(username: string): Promise<boolean>;
  list(): Promise<StoredUser[]>;
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
  replaceFailures(username: string, read: Account, next: AccountFailures, expiresAtSeconds: number): Promise<boolean>;
}

/** Records spent Digest nonces, so each is accepted once across every function instance. */
export interface NonceLedger {
  /** true the first time a nonce is spent, false ever after (until it expires from the ledger). */
  spend(nonce: string, expiresAtEpochSeconds: number): Promise<boolean>;
}

/** Named secrets kept by the deployment, made on first use and the same for every container after that. */
export interface SecretStore {
  /** The secret called `name`; when there is none yet, `generate()`'s value, stored for everyone after. */
  getOrCreate(name: string, generate: () => string): Promise<string>;
}
