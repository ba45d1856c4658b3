import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import type { AccountFailures } from '../../shared/auth/account-failures';
import { recordFor } from '../../shared/auth/account-failures';
import { Authenticator } from '../../shared/auth/authenticator';
import { sourceTag } from '../../shared/auth/client-address';
import { GuessingLimit } from '../../shared/auth/guessing-limit';
import { afterFailure, DEFAULT_LOCKOUT_POLICY, type FailureRecord, forgottenAt } from '../../shared/auth/lockout';
import { NonceCodec } from '../../shared/auth/nonce';
import type { AttemptChange } from '../../shared/auth/ports';
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

  it('every outcome is one conditional write: a failure counts, a success ends the run and counts nothing', async () => {
    await auth.authenticate(basic('alice', 'right'));
    await auth.authenticate(basic('alice', 'wrong'));
    await auth.authenticate(basic('alice', 'right'));
    await auth.authenticate(basic('alice', 'right'));
    expect(users.writes.map((w) => [w.outcome, w.record.consecutive])).toEqual([
      ['success', 0],
      ['failure', 1],
      ['success', 0],
      ['success', 0],
    ]);
    expect(users.stored.get('alice')?.version).toBe(1);
  });

  it('Digest: a right answer whose run is locked by another container in the meantime is refused', async () => {
    for (let i = 0; i < 4; i++) await auth.authenticate(basic('alice', 'wrong'));
    // Another container's failure lands between this request's read and its write that ends the run.
    const admit = users.admit.bind(users);
    users.admit = async (username, read, change) => {
      users.admit = admit;
      const current = users.failures.get(username) as FailureRecord;
      users.failures.set(username, afterFailure(current, now, DEFAULT_LOCKOUT_POLICY));
      return admit(username, read, change);
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
  /** The strangers' part of the ceiling: 80 of 100 an hour, so one failure every 90 s after the first 40. */
  const STRANGERS = { ...policy, failureLimit: 80 };

  /** A store whose record another container changes before each of this one's first `races` writes. */
  const contested = (races: number) => {
    const store = new MemoryUserStore();
    store.users.set('alice', userRecord('alice', 'right', REALM));
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
    const admit = store.admit.bind(store);
    store.admit = async (name: string, read: Account, change: AttemptChange) => {
      if (raced++ < races) {
        const current = store.failures.get(name);
        store.failures.set(name, afterFailure(current, T0, STRANGERS)); // the other container's failure
        return false;
      }
      if (change.outcome === 'failure') expiries.push(change.expiresAtSeconds);
      const admitted = await admit(name, read, change);
      if (admitted) writes.push(recordFor(store.stored.get(name), sourceTag(undefined)) as FailureRecord);
      return admitted;
    };
    return { store, writes, expiries, reads };
  };

  it('rereads (strongly consistent) and counts the failure once it wins', async () => {
    const { store, writes, expiries, reads } = contested(2);
    const limit = new GuessingLimit(store, policy, () => T0);
    const { account } = await limit.lookup('alice');
    expect(await limit.failed('alice', account)).toEqual({ counted: true, lockoutStarted: false });
    expect(writes).toEqual([{ consecutive: 3, lastFailureAt: T0, bucketAt: T0 + 3 * 90_000, version: 3 }]);
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
    never.admit = async () => {
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
    const user = userRecord('alice', 'right', REALM);
    never.users.set('alice', user);
    expect(await limit.succeeded('alice', { user, failures: never.stored.get('alice') })).toBeUndefined();
    expect(attempts).toBe(12);
  });

  it('a success on a record that changed ends the run on the latest version (read strongly consistent)', async () => {
    const { store, writes, reads } = contested(1);
    store.failures.set('alice', { consecutive: 1, lastFailureAt: T0, bucketAt: T0 + 90_000, version: 1 });
    const limit = new GuessingLimit(store, policy, () => T0 + 1);
    expect(await limit.succeeded('alice', await store.account('alice'))).toMatchObject({ username: 'alice' });
    expect(reads).toEqual([false, true]);
    // A success forgets its source's run altogether (its slot is free again), and counts nothing.
    expect(writes).toEqual([{ consecutive: 0, lastFailureAt: 0, bucketAt: T0 + 180_000, version: 2 }]);
    expect(store.stored.get('alice')?.signedIn).toEqual({ [sourceTag(undefined)]: T0 + 1 });
  });

  it('reports locked on lookup exactly while the record says so', async () => {
    const store = new MemoryUserStore();
    store.failures.set('alice', { consecutive: 5, lastFailureAt: T0, bucketAt: T0, version: 5 });
    expect((await new GuessingLimit(store, policy, () => T0 + 59_999).lookup('alice')).locked).toBe(true);
    expect((await new GuessingLimit(store, policy, () => T0 + 60_000).lookup('alice')).locked).toBe(false);
  });
});

describe('a burst of concurrent guesses from one address', () => {
  /** `size` attempts sent at once, the right password at `right` (if any); outcomes in sending order. */
  const burst = async (size: number, right?: number, address = '198.51.100.7') =>
    (
      await Promise.all(
        Array.from({ length: size }, (_, i) =>
          auth.authenticate({ ...basic('alice', i === right ? 'right' : `guess-${i}`), sourceAddress: address }),
        ),
      )
    ).map(outcome);

  it('evaluates at most lockoutAfter passwords however many arrive at once, every other one refused uncounted', async () => {
    const seen = await burst(32);
    expect(seen.filter((o) => o === WRONG)).toHaveLength(5);
    expect(seen.filter((o) => o === LOCKED)).toHaveLength(27);
    expect(users.writes.filter((w) => w.outcome === 'failure')).toHaveLength(5);
  });

  it('lets the right password in only when it is admitted before the run locks', async () => {
    // Every request reads the record before any writes: only the order of the writes decides.
    expect(await burst(32, 31)).not.toContain('accepted');
    now += 24 * 3_600_000;
    expect((await burst(32, 2)).filter((o) => o === 'accepted')).toHaveLength(1);
  });

  it('a right Digest answer on a spent nonce says stale only when admitted: no uncounted password test', async () => {
    const right = digest(auth.challenge(), 'alice', 'right');
    expect(outcome(await auth.authenticate(right))).toBe('accepted'); // its nonce is spent now
    const replay = { ...right, sourceAddress: '198.51.100.7' };
    // Alone, the replay is told stale (the answer was right), and changes nothing.
    const before = structuredClone(users.stored.get('alice'));
    expect(await auth.authenticate(replay)).toMatchObject({ ok: false, reason: 'nonce already used' });
    expect(users.stored.get('alice')).toEqual(before);
    // Four failures, then a burst whose first failure locks the address before the replay's admission:
    // every request read the address open, and the replay is refused like any guess.
    for (let i = 0; i < 4; i++) await auth.authenticate({ ...basic('alice', 'typo'), sourceAddress: '198.51.100.7' });
    const seen = await Promise.all([
      ...Array.from({ length: 31 }, (_, i) =>
        auth.authenticate({ ...basic('alice', `guess-${i}`), sourceAddress: '198.51.100.7' }),
      ),
      auth.authenticate(replay),
    ]);
    expect(seen.at(-1)).toMatchObject({ ok: false, reason: LOCKED });
    const last = seen.at(-1) as AuthResult;
    expect(last.ok ? '' : last.challenge).not.toContain('stale');
  });

  it('a burst after the address is locked changes nothing and lets nobody in', async () => {
    await burst(5);
    const before = users.writes.length;
    expect(await burst(32, 0)).toEqual(Array(32).fill(LOCKED));
    expect(users.writes).toHaveLength(before);
  });

  it('a burst of 100 from 100 addresses counts no more than the strangers’ part of the ceiling at once', async () => {
    const seen = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        auth.authenticate({ ...basic('alice', `guess-${i}`), sourceAddress: `203.0.113.${i + 1}` }),
      ),
    );
    // 80 of 100 an hour are the strangers': 40 at once, then one every 90 s.
    expect(seen.map(outcome).filter((o) => o === WRONG)).toHaveLength(40);
    expect(outcome(await auth.authenticate({ ...basic('alice', 'right'), sourceAddress: '203.0.113.200' }))).toBe(
      LOCKED,
    );
  });
});

describe('strangers cannot lock a user out from where the user signed in before', () => {
  const KNOWN = '192.0.2.10';
  const from = (address: string, password: string) =>
    auth.authenticate({ ...basic('alice', password), sourceAddress: address });

  it.each([9, 50])(
    '%i rotating addresses spending the ceiling: the user gets in from a known address; a new one waits for room',
    async (addresses) => {
      expect(outcome(await from(KNOWN, 'right'))).toBe('accepted');
      const counted: number[] = [];
      // For six hours the strangers keep their bucket empty: a guess from the next address every 10 s.
      for (let i = 0; i < 6 * 360; i++) {
        if (outcome(await from(`203.0.113.${(i % addresses) + 1}`, `guess-${i}`)) === WRONG) counted.push(now);
        if (i % 36 === 0) expect(outcome(await from(KNOWN, 'right')), `after ${i} guesses`).toBe('accepted');
        now += 10_000;
      }
      // Never more than the strangers' 80 in any hour (the known part keeps the other 20).
      for (const t of counted)
        expect(counted.filter((u) => u > t - 3_600_000 && u <= t).length).toBeLessThanOrEqual(80);
      expect(counted.length).toBeGreaterThan(6 * 40);
      // From an address that never signed in, the user is refused while the strangers' bucket is empty,
      // exactly like a stranger; they get in once it frees a failure before a stranger takes it.
      while (outcome(await from('203.0.113.1', 'guess')) === WRONG);
      expect(outcome(await from('198.51.100.99', 'right'))).toBe(LOCKED);
      now += 90_000;
      expect(outcome(await from('198.51.100.99', 'right'))).toBe('accepted');
    },
  );

  it('failures from a known address draw on its own part (20 an hour), which strangers cannot spend', async () => {
    expect(outcome(await from(KNOWN, 'right'))).toBe('accepted');
    for (let i = 0; i < 200; i++) await from(`203.0.113.${(i % 50) + 1}`, `guess-${i}`);
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push(outcome(await from(KNOWN, 'typo')));
    expect(seen).toEqual([WRONG, WRONG, WRONG, WRONG, WRONG, LOCKED]);
    now += 60_000;
    expect(outcome(await from(KNOWN, 'right'))).toBe('accepted');
  });

  /** Another container forgets every sign-in between this one's read and its write, once. */
  const forgetSignInsBeforeNextWrite = () => {
    const admit = users.admit.bind(users);
    users.admit = async (username, read, change) => {
      users.admit = admit;
      const stored = users.stored.get(username);
      users.stored.set(username, { ...(stored as AccountFailures), signedIn: {} });
      return admit(username, read, change);
    };
  };

  it('a failure from a known address whose sign-in another container forgot meanwhile counts as a stranger’s', async () => {
    expect(outcome(await from(KNOWN, 'right'))).toBe('accepted');
    const tag = sourceTag(KNOWN);
    forgetSignInsBeforeNextWrite();
    expect(outcome(await from(KNOWN, 'typo'))).toBe(WRONG);
    const record = users.stored.get('alice');
    expect(record?.knownBucketAt).toBeUndefined();
    expect(record?.bucketAt).toBe(now + 90_000);
    expect(record?.runs[tag]?.consecutive).toBe(1);
  });

  it('the right password from a known address whose sign-in another container forgot meanwhile waits like a stranger’s', async () => {
    expect(outcome(await from(KNOWN, 'right'))).toBe('accepted');
    for (let i = 0; i < 40; i++) await from(`203.0.113.${i + 1}`, `guess-${i}`); // the strangers' bucket is empty
    forgetSignInsBeforeNextWrite();
    expect(outcome(await from(KNOWN, 'right'))).toBe(LOCKED);
    expect(users.stored.get('alice')?.signedIn).toEqual({});
    now += 90_000;
    expect(outcome(await from(KNOWN, 'right'))).toBe('accepted');
  });

  it('a known address is forgotten 30 days after its last success', async () => {
    expect(outcome(await from(KNOWN, 'right'))).toBe('accepted');
    now += 30 * 24 * 3_600_000;
    for (let i = 0; i < 50; i++) await from(`203.0.113.${i + 1}`, `guess-${i}`);
    expect(outcome(await from(KNOWN, 'right'))).toBe(LOCKED);
  });
});
