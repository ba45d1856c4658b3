import { type AccountFailures, recordFor, withRecord } from '../../shared/auth/account-failures';
import { sourceTag } from '../../shared/auth/client-address';
import { DEFAULT_LOCKOUT_POLICY, type FailureRecord } from '../../shared/auth/lockout';
import type { AccountStore, NonceLedger, UserStore } from '../../shared/auth/ports';
import type { Account, StoredUser } from '../../shared/auth/types';

/** The source of a request that carries no client address (what the unit tests send). */
const NO_ADDRESS = sourceTag(undefined);

/** The failure records of names as seen from one client source: the run of that source, with the account's bucket. */
class SourceView {
  constructor(
    private readonly stored: Map<string, AccountFailures>,
    private readonly source: string,
  ) {}
  get(username: string): FailureRecord | undefined {
    return recordFor(this.stored.get(username), this.source);
  }
  set(username: string, record: FailureRecord) {
    this.stored.set(username, withRecord(this.stored.get(username), this.source, record, DEFAULT_LOCKOUT_POLICY));
  }
  delete(username: string) {
    return this.stored.delete(username);
  }
}

/** In-memory users and failure records for unit tests of the authenticator. */
export class MemoryUserStore implements UserStore, AccountStore {
  readonly users = new Map<string, StoredUser>();
  /** The failure records as stored, every client source's run. */
  readonly stored = new Map<string, AccountFailures>();
  /** The failure records as a request without a client address sees them. */
  readonly failures = new SourceView(this.stored, NO_ADDRESS);
  /** Every failure record written, in order, as a request without a client address sees it. */
  readonly writes: Array<{ username: string; record: FailureRecord; stored: AccountFailures }> = [];
  async get(username: string) {
    return this.users.get(username);
  }
  async put(user: StoredUser) {
    this.users.set(user.username, user);
    this.stored.delete(user.username);
  }
  async delete(username: string) {
    return this.users.delete(username);
  }
  async list() {
    return [...this.users.values()];
  }
  async account(username: string, _latest = false): Promise<Account> {
    const user = this.users.get(username);
    const failures = this.stored.get(username);
    return { ...(user && { user }), ...(failures && { failures: structuredClone(failures) }) };
  }
  async replaceFailures(username: string, read: Account, next: AccountFailures, _expiresAtSeconds = 0) {
    if (this.stored.get(username)?.version !== read.failures?.version) return false;
    this.stored.set(username, structuredClone(next));
    this.writes.push({ username, record: recordFor(next, NO_ADDRESS) as FailureRecord, stored: structuredClone(next) });
    return true;
  }
}

export class MemoryNonceLedger implements NonceLedger {
  readonly spent = new Set<string>();
  async spend(nonce: string) {
    if (this.spent.has(nonce)) return false;
    this.spent.add(nonce);
    return true;
  }
}
