import { type AccountFailures, failuresForgottenAt, recordFor, withRecord } from './account-failures';
import { sourceTag } from './client-address';
import { afterFailure, afterSuccess, isLocked, type LockoutPolicy } from './lockout';
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
  /** No password is evaluated for this account from this client now. */
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
 * a failure is counted exactly once, only while the account is not locked for its client source
 * (its own run, and the ceiling over every source); a success writes only when it ends its
 * source's run of failures. `address` is the client's address, undefined when none is known.
 */
export class GuessingLimit {
  constructor(
    private readonly store: AccountStore,
    private readonly policy: LockoutPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /** The one read every authentication makes. */
  async lookup(username: string, address?: string): Promise<Lookup> {
    const account = await this.store.account(username);
    return { account, locked: this.isLocked(account.failures, sourceTag(address), this.now()) };
  }

  async failed(username: string, read: Account, address?: string): Promise<FailureOutcome> {
    const source = sourceTag(address);
    let account = read;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = this.now();
      if (this.isLocked(account.failures, source, now)) return { counted: false, lockoutStarted: false };
      const next = afterFailure(recordFor(account.failures, source), now, this.policy);
      const stored = withRecord(account.failures, source, next, this.policy);
      if (await this.write(username, account, stored)) {
        return { counted: true, lockoutStarted: isLocked(next, now, this.policy) };
      }
      account = await this.store.account(username, true);
    }
    return { counted: false, lockoutStarted: false };
  }

  /** A right password: true when the account may be let in (it was not locked meanwhile). */
  async succeeded(username: string, read: Account, address?: string): Promise<boolean> {
    const source = sourceTag(address);
    let account = read;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (this.isLocked(account.failures, source, this.now())) return false;
      const next = afterSuccess(recordFor(account.failures, source));
      if (!next || (await this.write(username, account, withRecord(account.failures, source, next, this.policy)))) {
        return true;
      }
      account = await this.store.account(username, true);
    }
    return false;
  }

  private isLocked(failures: AccountFailures | undefined, source: string, now: number) {
    return isLocked(recordFor(failures, source), now, this.policy);
  }

  private write(username: string, read: Account, next: AccountFailures) {
    return this.store.replaceFailures(username, read, next, failuresForgottenAt(next, this.policy));
  }
}
