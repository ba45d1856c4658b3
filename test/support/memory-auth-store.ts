import { randomUUID } from 'node:crypto';
import { type AccountFailures, recordFor, withRecord } from '../../shared/auth/account-failures';
import { sourceTag } from '../../shared/auth/client-address';
import { DEFAULT_LOCKOUT_POLICY, type FailureRecord } from '../../shared/auth/lockout';
import type { AccountStore, AttemptChange, NonceLedger, UserStore } from '../../shared/auth/ports';
import type { Role } from '../../shared/auth/roles';
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
  /** Every admitted outcome, in order, with the record as a request without a client address sees it. */
  readonly writes: Array<{
    username: string;
    outcome: AttemptChange['outcome'];
    record: FailureRecord;
    stored: AccountFailures;
  }> = [];
  async get(username: string) {
    return this.users.get(username);
  }
  async put(user: StoredUser) {
    this.users.set(user.username, { ...user, version: randomUUID() });
    this.stored.delete(user.username);
  }
  async setRole(username: string, role: Role) {
    const user = this.users.get(username);
    if (user) this.users.set(username, { ...user, role, version: randomUUID() });
    return user !== undefined;
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
  /** The DynamoDB adapter's conditions and updates (shared/store/auth/dynamodb-account-store.ts), on the map. */
  async admit(username: string, read: Account, change: AttemptChange) {
    if (change.outcome === 'failure') {
      if (this.users.has(username) !== (read.user !== undefined)) return false;
    } else {
      const user = this.users.get(username);
      if (user?.ha1['SHA-256'] !== change.ha1Sha256 || user.version !== change.credentialVersion) return false;
    }
    const current = this.stored.get(username);
    const run = current?.runs[change.source];
    const seen = change.seenRun;
    if (seen ? run?.consecutive !== seen.consecutive || run.lastFailureAt !== seen.lastFailureAt : run) return false;
    if (change.knownSince !== undefined && !((current?.signedIn?.[change.source] ?? -1) >= change.knownSince)) {
      return false;
    }
    const bucket = current?.[change.bucket.field];
    const runs = { ...current?.runs };
    let next: AccountFailures;
    if (change.outcome === 'failure') {
      const seenBucket = read.failures?.[change.bucket.field] ?? 0;
      let moved: number;
      if (seenBucket >= change.now) {
        if (bucket === undefined || bucket < change.now || bucket > change.bucket.atMost) return false;
        moved = bucket + change.intervalMs;
      } else {
        if (bucket !== undefined && bucket >= change.now) return false;
        moved = change.now + change.intervalMs;
      }
      for (const evicted of change.evict) delete runs[evicted];
      runs[change.source] = change.run;
      next = {
        ...current,
        runs,
        bucketAt: current?.bucketAt ?? 0,
        [change.bucket.field]: moved,
        version: (current?.version ?? 0) + 1,
      };
    } else if (change.outcome === 'check') {
      if (bucket !== undefined && bucket > change.bucket.atMost) return false;
      next = structuredClone(current) as AccountFailures;
    } else {
      if (bucket !== undefined && bucket > change.bucket.atMost) return false;
      delete runs[change.source];
      const signedIn = { ...current?.signedIn, [change.source]: change.now };
      for (const tag of change.forget) delete signedIn[tag];
      next = { ...current, runs, bucketAt: current?.bucketAt ?? 0, signedIn, version: current?.version ?? 0 };
    }
    this.stored.set(username, structuredClone(next));
    this.writes.push({
      username,
      outcome: change.outcome,
      record: recordFor(next, NO_ADDRESS) as FailureRecord,
      stored: structuredClone(next),
    });
    return true;
  }
}

export class MemoryNonceLedger implements NonceLedger {
  /** Each used nonce's highest count accepted. */
  readonly used = new Map<string, number>();
  async use(nonce: string, count: number) {
    const highest = this.used.get(nonce);
    if (highest !== undefined && highest >= count) return false;
    this.used.set(nonce, count);
    return true;
  }
}
