import {
  type AccountFailures,
  budgetFor,
  failuresForgottenAt,
  recordFor,
  runsToEvict,
  signInsToForget,
  withRecord,
} from './account-failures';
import { sourceTag } from './client-address';
import { afterFailure, bucketLimits, isLocked, type LockoutPolicy } from './lockout';
import type { AccountStore, AttemptChange } from './ports';
import type { Account, StoredUser } from './types';

/**
 * Rounds of read-and-write an attempt may take when other containers keep changing the same
 * record. Writes from one source conflict only with that source's, and it locks after a few
 * counted failures, so the rounds end quickly; past this many, the attempt is refused uncounted
 * (the safe side).
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
 * The failure limit on the account store, shared by every container through conditional writes.
 * Every outcome of a password, wrong or right, is admitted by one conditional write on the
 * account's record that holds only while the source is not locked: its run as read (so failures
 * from one source are counted one at a time) and its bucket not empty. A wrong password's write
 * counts it; a right one's ends the source's run and remembers the source as signed in. So however
 * many requests arrive at once, on however many containers, the writes put them in one order, and a
 * right password is let in only when it comes, in that order, before the source's run or the
 * bucket locks: the passwords that can be let in are never more than the limit admits.
 * `address` is the client's address, undefined when none is known.
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
    return { account, locked: this.view(account.failures, sourceTag(address), this.now()).locked };
  }

  async failed(username: string, read: Account, address?: string): Promise<FailureOutcome> {
    const source = sourceTag(address);
    let account = read;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = this.now();
      const { budget, record, locked, check } = this.view(account.failures, source, now);
      if (locked) return { counted: false, lockoutStarted: false };
      const next = afterFailure(record, now, budget.policy);
      const stored: AccountFailures = {
        ...withRecord(account.failures, source, { ...next, bucketAt: account.failures?.bucketAt ?? 0 }, this.policy),
        [budget.field]: next.bucketAt,
      };
      const change: AttemptChange = {
        outcome: 'failure',
        source,
        seenRun: account.failures?.runs[source],
        bucket: check,
        ...(budget.knownSince !== undefined && { knownSince: budget.knownSince }),
        now,
        intervalMs: bucketLimits(budget.policy, now).intervalMs,
        run: { consecutive: next.consecutive, lastFailureAt: next.lastFailureAt },
        evict: runsToEvict(account.failures, source, this.policy),
        expiresAtSeconds: failuresForgottenAt(stored, this.policy),
      };
      if (await this.store.admit(username, account, change)) {
        return { counted: true, lockoutStarted: isLocked(next, now, budget.policy) };
      }
      account = await this.store.account(username, true);
    }
    return { counted: false, lockoutStarted: false };
  }

  /**
   * A right password: the user as admitted (its role may have changed in flight), or undefined when
   * it may not be let in (locked, removed or given another password in the meantime).
   */
  succeeded(username: string, read: Account, address?: string): Promise<StoredUser | undefined> {
    return this.admitRight('success', username, read, address);
  }

  /**
   * A right Digest answer on a spent or expired nonce: true when the client may be told so
   * (`stale=true`), i.e. when a success would have been admitted; nothing changes either way.
   */
  async rightButStale(username: string, read: Account, address?: string): Promise<boolean> {
    return (await this.admitRight('check', username, read, address)) !== undefined;
  }

  private async admitRight(
    outcome: 'success' | 'check',
    username: string,
    read: Account,
    address?: string,
  ): Promise<StoredUser | undefined> {
    const source = sourceTag(address);
    const ha1Sha256 = read.user?.ha1['SHA-256'];
    let account = read;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = this.now();
      const { budget, locked, check } = this.view(account.failures, source, now);
      // Removed or given another password since the password was checked: not let in.
      const user = account.user;
      if (locked || ha1Sha256 === undefined || user?.ha1['SHA-256'] !== ha1Sha256) return undefined;
      const change: AttemptChange = {
        outcome,
        source,
        seenRun: account.failures?.runs[source],
        bucket: check,
        ...(budget.knownSince !== undefined && { knownSince: budget.knownSince }),
        now,
        ha1Sha256,
        credentialVersion: user.version,
        forget: signInsToForget(account.failures, source, now),
      };
      if (await this.store.admit(username, account, change)) return user;
      account = await this.store.account(username, true);
    }
    return undefined;
  }

  /** The source's view of the record at `now`: its bucket, its lockout rules' record, and whether it is locked. */
  private view(failures: AccountFailures | undefined, source: string, now: number) {
    const budget = budgetFor(failures, source, now, this.policy);
    const record = recordFor(failures, source, budget.field);
    const { atMost } = bucketLimits(budget.policy, now);
    return {
      budget,
      record,
      locked: isLocked(record, now, budget.policy),
      check: { field: budget.field, atMost },
    };
  }
}
