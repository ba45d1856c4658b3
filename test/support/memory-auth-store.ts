import type { NonceLedger, UserStore } from '../../shared/auth/ports';
import type { StoredUser } from '../../shared/auth/types';

/** In-memory user store and nonce ledger for unit tests of the authenticator. */
export class MemoryUserStore implements UserStore {
  readonly users = new Map<string, StoredUser>();
  async get(username: string) {
    return this.users.get(username);
  }
  async put(user: StoredUser) {
    this.users.set(user.username, user);
  }
  async delete(username: string) {
    return this.users.delete(username);
  }
  async list() {
    return [...this.users.values()];
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
