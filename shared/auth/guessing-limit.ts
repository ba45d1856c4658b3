import { afterFailure, afterSuccess, type FailureRecord, forgottenAt, isLocked, type LockoutPolicy } from './lockout';
import type { AccountStore } from './ports';
import type { Account } from './types';

/**
 * Rounds of read-and-write a failure or a success may take when other containers keep changing the
 * same record. Each round one writer wins, and the account locks after a few counted failures, so
 * the rounds end quickly; past this many, the attempt is refused uncounted (the safe side).
 */
const MAX_ROUNDS = 12;

export interface Lookup {
  account: Account;
  /** No password is evaluated for this account now. */
  locked: boolean;
}

export interface FailureOutcome {
  /** False when the account had become locked before this failure could be counted. */
  counted: boolean;
  /** This failure began a lockout. */
  lockoutStarted: boolean;
}

/**
 * The failure limit on the account store, shared by every container through conditional writes:
 * a failure is counted exactly once, only while the account is not locked; a success writes only
 * when it ends a run of failures.
 */
export class GuessingLimit {
  constructor(
    private readonly store: AccountStore,
    private readonly policy: LockoutPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /** The one read every authentication makes. */
  async lookup(username: string): Promise<Lookup> {
    const account = await this.store.account(username);
    return { account, locked: isLocked(account.failures, this.now(), this.policy) };
  }

  async failed(username: string, read: Account): Promise<FailureOutcome> {
    let account = read;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = this.now();
      if (isLocked(account.failures, now, this.policy)) return { counted: false, lockoutStarted: false };
      const next = afterFailure(account.failures, now, this.policy);
      if (await this.write(username, account, next)) {
        return { counted: true, lockoutStarted: isLocked(next, now, this.policy) };
      }
      account = await this.store.account(username, true);
    }
    return { counted: false, lockoutStarted: false };
  }

  /** A right password: true when the account may be let in (it was not locked meanwhile). */
  async succeeded(username: string, read: Account): Promise<boolean> {
    let account = read;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (isLocked(account.failures, this.now(), this.policy)) return false;
      const next = afterSuccess(account.failures);
      if (!next || (await this.write(username, account, next))) return true;
      account = await this.store.account(username, true);
    }
    return false;
  }

  private write(username: string, read: Account, next: FailureRecord) {
    return this.store.replaceFailures(username, read, next, forgottenAt(next, this.policy));
  }
}
