import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { userRecord } from '../../admin/user-records';
import { type AccountFailures, recordFor } from '../../shared/auth/account-failures';
import { Authenticator } from '../../shared/auth/authenticator';
import { sourceTag } from '../../shared/auth/client-address';
import { GuessingLimit } from '../../shared/auth/guessing-limit';
import { afterFailure, DEFAULT_LOCKOUT_POLICY, type FailureRecord, forgottenAt } from '../../shared/auth/lockout';
import { NonceCodec } from '../../shared/auth/nonce';
import type { Account, AuthRequest, AuthResult } from '../../shared/auth/types';
import { MemoryNonceLedger, MemoryUserStore } from '../support/memory-auth-store';

/** The failure limit in the authenticator, on the in-memory store with a clock the test moves. */
const REALM = 'books';
const T0 = 1_800_000_000_000;
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

const basic = (user: string, password: string): AuthRequest => ({
  method: 'GET',
  path: '/api/books',
  query: {},
  authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`,
});
const digest = (challenge: string, username: string, password: string, nonceOf = (c: string) => c): AuthRequest => {
  const nonce = nonceOf(/nonce="([^"]+)"/.exec(challenge)?.[1] as string);
  const opaque = /opaque="([^"]+)"/.exec(challenge)?.[1] as string;
  const ha1 = md5(`${username}:${REALM}:${password}`);
  const response = md5(`${ha1}:${nonce}:00000001:c0:auth:${md5('GET:/api/books')}`);
  return {
    method: 'GET',
    path: '/api/books',
    query: {},
    authorization: `Digest username="${username}", realm="${REALM}", nonce="${nonce}", uri="/api/books", qop=auth, nc=00000001, cnonce="c0", response="${response}", opaque="${opaque}"`,
  };
};
const outcome = (result: AuthResult) => (result.ok ? 'accepted' : result.reason);
const WRONG = 'wrong user or password';
const LOCKED = 'account locked';

let now: number;
let users: MemoryUserStore;
let auth: Authenticator;

beforeEach(async () => {
  now = T0;
  users = new MemoryUserStore();
  await users.put(userRecord('alice', 'right', REALM));
  auth = new Authenticator(users, new MemoryNonceLedger(), new NonceCodec(Buffer.from('k'), 300, () => now / 1000), {
    realm: REALM,
    algorithms: ['MD5'],
    now: () => now,
  });
});

describe('the authenticator under the failure limit', () => {
  it('uses the default policy when given none: the fifth failure locks, the right password is then refused', async () => {
    const results: AuthResult[] = [];
    for (let i = 0; i < 6; i++) results.push(await auth.authenticate(basic('alice', 'wrong')));
    expect(results.map(outcome)).toEqual([WRONG, WRONG, WRONG, WRONG, WRONG, LOCKED]);
    expect(results.map((r) => !r.ok && r.lockoutStarted === true)).toEqual([false, false, false, false, true, false]);
    expect(results.every((r) => !r.ok && /^Digest realm="books"/.test(r.challenge))).toBe(true);
    expect(outcome(await auth.authenticate(basic('alice', 'right')))).toBe(LOCKED);
    expect(users.writes).toHaveLength(5); // attempts while locked write nothing
    now += 60_000;
    expect(outcome(await auth.authenticate(basic('alice', 'right')))).toBe('accepted');
    expect(users.failures.get('alice')?.consecutive).toBe(0);
  });

  it('a success with no run writes nothing; one ending a run writes once', async () => {
    await auth.authenticate(basic('alice', 'right'));
    expect(users.writes).toHaveLength(0);
    await auth.authenticate(basic('alice', 'wrong'));
    await auth.authenticate(basic('alice', 'right'));
    await auth.authenticate(basic('alice', 'right'));
    expect(users.writes.map((w) => w.record.consecutive)).toEqual([1, 0]);
  });

  it('Digest: a right answer whose run is locked by another container in the meantime is refused', async () => {
    for (let i = 0; i < 4; i++) await auth.authenticate(basic('alice', 'wrong'));
    // Another container's failure lands between this request's read and its write that ends the run.
    const replace = users.replaceFailures.bind(users);
    users.replaceFailures = async (username, read, next, expiresAt) => {
      users.replaceFailures = replace;
      const current = users.failures.get(username) as FailureRecord;
      users.failures.set(username, afterFailure(current, now, DEFAULT_LOCKOUT_POLICY));
      return replace(username, read, next, expiresAt);
    };
    expect(outcome(await auth.authenticate(digest(auth.challenge(), 'alice', 'right')))).toBe(LOCKED);
    expect(users.failures.get('alice')?.consecutive).toBe(5);
  });

  it('locks a name that is nobody’s, or a user of another realm, exactly as a user', async () => {
    await users.put({ ...userRecord('elsewhere', 'right', 'other'), realm: 'other' });
    for (const name of ['ghost', 'elsewhere']) {
      const seen: string[] = [];
      for (let i = 0; i < 6; i++) seen.push(outcome(await auth.authenticate(basic(name, 'right'))));
      expect(seen, name).toEqual([WRONG, WRONG, WRONG, WRONG, WRONG, LOCKED]);
    }
  });

  it('Digest: a locked account is refused before the comparison, with no stale flag, and its nonce is not spent', async () => {
    for (let i = 0; i < 5; i++) await auth.authenticate(digest(auth.challenge(), 'alice', 'wrong'));
    const result = await auth.authenticate(digest(auth.challenge(), 'alice', 'right'));
    expect(result).toMatchObject({ ok: false, reason: LOCKED });
    expect(result.ok ? '' : result.challenge).not.toContain('stale');
    now += 60_000;
    expect(outcome(await auth.authenticate(digest(auth.challenge(), 'alice', 'right')))).toBe('accepted');
  });

  it('Digest: a wrong answer counts, and the fifth locks', async () => {
    const results: AuthResult[] = [];
    for (let i = 0; i < 5; i++) results.push(await auth.authenticate(digest(auth.challenge(), 'alice', 'wrong')));
    expect(results.map(outcome)).toEqual(Array(5).fill(WRONG));
    expect(results.at(-1)).toMatchObject({ lockoutStarted: true });
  });

  it('Digest: a right answer with an expired nonce gets stale=true and leaves the run as it was', async () => {
    await auth.authenticate(basic('alice', 'wrong'));
    const challenge = auth.challenge();
    now += 301_000;
    const result = await auth.authenticate(digest(challenge, 'alice', 'right'));
    expect(result).toMatchObject({ ok: false, reason: 'nonce expired' });
    expect(users.failures.get('alice')?.consecutive).toBe(1);
  });

  it('Digest: a replayed right answer (a spent nonce) leaves the run as it was', async () => {
    const right = digest(auth.challenge(), 'alice', 'right');
    expect(outcome(await auth.authenticate(right))).toBe('accepted');
    await auth.authenticate(basic('alice', 'wrong'));
    expect(outcome(await auth.authenticate(right))).toBe('nonce already used');
    expect(users.failures.get('alice')?.consecutive).toBe(1);
  });

  it('refuses the right password when the account was locked between the read and the success', async () => {
    const locked = afterFailure(undefined, now, { ...DEFAULT_LOCKOUT_POLICY, lockoutAfter: 1 });
    const racing = new MemoryUserStore();
    await racing.put(userRecord('alice', 'right', REALM));
    racing.failures.set('alice', { consecutive: 1, lastFailureAt: now - 1, bucketAt: now, version: 1 });
    const account = racing.account.bind(racing);
    racing.account = async (name, latest) => {
      const read = await account(name, latest);
      // Another container locks the account right after this read.
      if (!latest) racing.failures.set('alice', { ...locked, consecutive: 5, version: 2 });
      return read;
    };
    const raced = new Authenticator(racing, new MemoryNonceLedger(), new NonceCodec(Buffer.from('k'), 300), {
      realm: REALM,
      algorithms: ['MD5'],
      now: () => now,
    });
    expect(outcome(await raced.authenticate(basic('alice', 'right')))).toBe(LOCKED);
  });
});

describe('GuessingLimit on a record other containers keep changing', () => {
  const policy = DEFAULT_LOCKOUT_POLICY;

  /** A store whose record another container changes before each of this one's first `races` writes. */
  const contested = (races: number) => {
    const store = new MemoryUserStore();
    let raced = 0;
    const writes: FailureRecord[] = [];
    const expiries: number[] = [];
    /** Whether each read asked for the latest (strongly consistent) record. */
    const reads: boolean[] = [];
    const read = store.account.bind(store);
    store.account = async (name: string, latest = false) => {
      reads.push(latest);
      return read(name, latest);
    };
    const replace = store.replaceFailures.bind(store);
    store.replaceFailures = async (name: string, read: Account, next: AccountFailures, expiresAt: number) => {
      if (raced++ < races) {
        const current = store.failures.get(name);
        store.failures.set(name, afterFailure(current, T0, policy)); // the other container's failure
        return false;
      }
      writes.push(recordFor(next, sourceTag(undefined)) as FailureRecord);
      expiries.push(expiresAt);
      return replace(name, read, next);
    };
    return { store, writes, expiries, reads };
  };

  it('rereads (strongly consistent) and counts the failure once it wins', async () => {
    const { store, writes, expiries, reads } = contested(2);
    const limit = new GuessingLimit(store, policy, () => T0);
    const { account } = await limit.lookup('alice');
    expect(await limit.failed('alice', account)).toEqual({ counted: true, lockoutStarted: false });
    expect(writes).toEqual([{ consecutive: 3, lastFailureAt: T0, bucketAt: T0 + 3 * 72_000, version: 3 }]);
    expect(expiries).toEqual([forgottenAt(writes[0] as FailureRecord, policy)]);
    expect(reads).toEqual([false, true, true]); // the lookup as always, then the latest after each lost race
  });

  it('does not count a failure the others locked the account before (and says it started no lockout)', async () => {
    const { store, writes } = contested(5);
    const limit = new GuessingLimit(store, policy, () => T0);
    expect(await limit.failed('alice', (await limit.lookup('alice')).account)).toEqual({
      counted: false,
      lockoutStarted: false,
    });
    expect(writes).toHaveLength(0);
    expect(store.failures.get('alice')?.consecutive).toBe(5);
  });

  it('gives up uncounted (refusing) after twelve lost rounds, and so does a success', async () => {
    const never = new MemoryUserStore();
    let attempts = 0;
    never.replaceFailures = async () => {
      attempts++;
      return false;
    };
    const noLocks = { ...policy, lockoutAfter: 1_000, failureLimit: 10_000 };
    const limit = new GuessingLimit(never, noLocks, () => T0);
    expect(await limit.failed('alice', {})).toEqual({ counted: false, lockoutStarted: false });
    expect(attempts).toBe(12);
    const run = { consecutive: 2, lastFailureAt: T0, bucketAt: T0, version: 2 };
    never.failures.set('alice', run);
    attempts = 0;
    expect(await limit.succeeded('alice', { failures: never.stored.get('alice') })).toBe(false);
    expect(attempts).toBe(12);
  });

  it('a success on a record that changed ends the run on the latest version (read strongly consistent)', async () => {
    const { store, writes, reads } = contested(1);
    store.failures.set('alice', { consecutive: 1, lastFailureAt: T0, bucketAt: T0 + 72_000, version: 1 });
    const limit = new GuessingLimit(store, policy, () => T0 + 1);
    expect(await limit.succeeded('alice', await store.account('alice'))).toBe(true);
    expect(reads).toEqual([false, true]);
    // A success forgets its source's run altogether (its slot is free again).
    expect(writes).toEqual([{ consecutive: 0, lastFailureAt: 0, bucketAt: T0 + 144_000, version: 3 }]);
  });

  it('reports locked on lookup exactly while the record says so', async () => {
    const store = new MemoryUserStore();
    store.failures.set('alice', { consecutive: 5, lastFailureAt: T0, bucketAt: T0, version: 5 });
    expect((await new GuessingLimit(store, policy, () => T0 + 59_999).lookup('alice')).locked).toBe(true);
    expect((await new GuessingLimit(store, policy, () => T0 + 60_000).lookup('alice')).locked).toBe(false);
  });
});
