import type { FailureRecord } from '../../shared/auth/lockout';
import type { AccountStore, NonceLedger, UserStore } from '../../shared/auth/ports';
import type { Account, StoredUser } from '../../shared/auth/types';

/** In-memory users and failure records for unit tests of the authenticator. */
export class MemoryUserStore implements UserStore, AccountStore {
  readonly users = new Map<string, StoredUser>();
  readonly failures = new Map<string, FailureRecord>();
  /** Every failure record written, in order. */
  readonly writes: Array<{ username: string; record: FailureRecord }> = [];
  async get(username: string) {
    return this.users.get(username);
  }
  async put(user: StoredUser) {
    this.users.set(user.username, user);
    this.failures.delete(user.username);
  }
  async delete(username: string) {
    return this.users.delete(username);
  }
  async list() {
    return [...this.users.values()];
  }
  async account(username: string, _latest = false): Promise<Account> {
    const user = this.users.get(username);
    const failures = this.failures.get(username);
    return { ...(user && { user }), ...(failures && { failures: { ...failures } }) };
  }
  async replaceFailures(username: string, read: Account, next: FailureRecord, _expiresAtSeconds = 0) {
    if (this.failures.get(username)?.version !== read.failures?.version) return false;
    this.failures.set(username, { ...next });
    this.writes.push({ username, record: { ...next } });
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
