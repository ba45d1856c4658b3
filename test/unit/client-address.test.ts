import { describe, expect, it } from 'vitest';
import {
  type AccountFailures,
  budgetFor,
  failuresForgottenAt,
  isKnown,
  KNOWN_FOR_MS,
  KNOWN_SLOTS,
  knownShare,
  lockedEverywhereUntil,
  lockedSources,
  recordFor,
  runsToEvict,
  SOURCE_SLOTS,
  signInsToForget,
  withRecord,
} from '../../shared/auth/account-failures';
import { clientSource, sourceTag } from '../../shared/auth/client-address';
import { afterFailure, DEFAULT_LOCKOUT_POLICY, type FailureRecord } from '../../shared/auth/lockout';

describe('the client source failures are counted by', () => {
  it('is an IPv4 address as it is, also when a dual-stack socket maps it into IPv6', () => {
    expect(clientSource('203.0.113.7')).toBe('203.0.113.7');
    expect(clientSource('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientSource('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is the /64 prefix of an IPv6 address, however the address is written', () => {
    expect(clientSource('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientSource('2001:0DB8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(clientSource('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientSource('::1')).toBe('0:0:0:0::/64');
    expect(clientSource('2001:db8:1:3::1')).not.toBe(clientSource('2001:db8:1:2::1'));
    // `::` at the start: the groups after it reach into the prefix.
    expect(clientSource('::1:2:3:4:5:6')).toBe('0:0:1:2::/64');
    // `::` after one group: it stands for as many zero groups as the eight leave room for.
    expect(clientSource('1::2:3:4:5:6')).toBe('1:0:0:2::/64');
    // An embedded IPv4 tail fills the last two groups, so the groups before it move into the prefix.
    expect(clientSource('::1:2:3:4:192.0.2.1')).toBe('0:0:1:2::/64');
  });

  it('takes an IPv4 address out of IPv6 only in the mapped form, the whole address', () => {
    expect(clientSource('fe80::ffff:203.0.113.7')).toBe('fe80:0:0:0::/64');
    expect(clientSource('::ffff:203.0.113.7zz')).toBe('unknown');
  });

  it('is one source of its own when there is no address or it is not one', () => {
    expect(clientSource(undefined)).toBe('unknown');
    expect(clientSource('')).toBe('unknown');
    expect(clientSource('not an address')).toBe('unknown');
  });

  it('is read without the white space around the address', () => {
    expect(clientSource(' 203.0.113.7\n')).toBe('203.0.113.7');
    expect(clientSource('\t2001:db8:1:2::1 ')).toBe('2001:db8:1:2::/64');
    expect(clientSource('')).toBe('unknown');
    expect(clientSource('not an address')).toBe('unknown');
  });

  it('is kept as an 11-character tag, the same for addresses of one source', () => {
    expect(sourceTag('2001:db8:1:2::1')).toMatch(/^[\w-]{11}$/);
    expect(sourceTag('2001:db8:1:2::1')).toBe(sourceTag('2001:db8:1:2:aaaa::5'));
    expect(sourceTag('203.0.113.7')).not.toBe(sourceTag('203.0.113.8'));
  });
});

describe('the runs a record keeps per source', () => {
  const policy = DEFAULT_LOCKOUT_POLICY;
  const T0 = 1_800_000_000_000;

  it('share the bucket and version, each source with its own run', () => {
    let stored = withRecord(undefined, 'a', afterFailure(undefined, T0, policy), policy);
    stored = withRecord(stored, 'b', afterFailure(recordFor(stored, 'b'), T0 + 1, policy), policy);
    expect(recordFor(stored, 'a')).toMatchObject({ consecutive: 1, lastFailureAt: T0, version: 2 });
    expect(recordFor(stored, 'b')).toMatchObject({ consecutive: 1, lastFailureAt: T0 + 1, version: 2 });
    expect(recordFor(stored, 'c')).toMatchObject({ consecutive: 0, bucketAt: stored.bucketAt, version: 2 });
  });

  it('forget a source whose run a success ended', () => {
    const stored = withRecord(undefined, 'a', afterFailure(undefined, T0, policy), policy);
    const ended = withRecord(stored, 'a', { ...(recordFor(stored, 'a') as FailureRecord), consecutive: 0 }, policy);
    expect(ended.runs).toEqual({});
  });

  it(`keep ${SOURCE_SLOTS} sources: a new one takes the place of the one whose lockout ends first`, () => {
    let stored = withRecord(undefined, 'first', afterFailure(undefined, T0, policy), policy);
    for (let i = 1; i < SOURCE_SLOTS; i++) {
      const source = `s${i}`;
      for (let j = 0; j < 5; j++) {
        stored = withRecord(stored, source, afterFailure(recordFor(stored, source), T0 + i, policy), policy);
      }
    }
    // 'first' has one failure (no lockout): it goes before any locked source.
    stored = withRecord(stored, 'new', afterFailure(recordFor(stored, 'new'), T0 + 10, policy), policy);
    expect(Object.keys(stored.runs)).toHaveLength(SOURCE_SLOTS);
    expect(stored.runs).not.toHaveProperty('first');
    // An unlocked source goes first again: the one just added, not a locked one.
    stored = withRecord(stored, 'newer', afterFailure(recordFor(stored, 'newer'), T0 + 11, policy), policy);
    expect(stored.runs).not.toHaveProperty('new');

    // All locked: the earliest lockout end goes.
    let locked = withRecord(undefined, 's0', afterFailure(undefined, T0, policy), policy);
    for (let i = 0; i < SOURCE_SLOTS; i++) {
      for (let j = i === 0 ? 1 : 0; j < 5; j++) {
        locked = withRecord(locked, `s${i}`, afterFailure(recordFor(locked, `s${i}`), T0 + i, policy), policy);
      }
    }
    locked = withRecord(locked, 'x', afterFailure(recordFor(locked, 'x'), T0 + 20, policy), policy);
    expect(Object.keys(locked.runs).sort()).toEqual(['s1', 's2', 's3', 's4', 's5', 's6', 's7', 'x']);
  });
});

describe('the sources locked now', () => {
  const policy = DEFAULT_LOCKOUT_POLICY;
  const T0 = 1_800_000_000_000;

  it('are those whose own run locks them at that moment, each with its end', () => {
    let stored = withRecord(undefined, 'guesser', afterFailure(undefined, T0, policy), policy);
    for (let j = 1; j < policy.lockoutAfter; j++) {
      stored = withRecord(stored, 'guesser', afterFailure(recordFor(stored, 'guesser'), T0 + j, policy), policy);
    }
    stored = withRecord(stored, 'typo', afterFailure(recordFor(stored, 'typo'), T0 + 10, policy), policy);
    const locked = lockedSources(stored, T0 + 10, policy);
    expect(locked.map((entry) => entry.source)).toEqual(['guesser']);
    const until = locked[0]?.until as number;
    expect(until).toBeGreaterThan(T0 + 10);
    expect(lockedSources(stored, until, policy)).toEqual([]);
    expect(lockedSources(stored, until - 1, policy)).toHaveLength(1);
  });
});

describe('the addresses a record remembers as signed in', () => {
  const policy = DEFAULT_LOCKOUT_POLICY;
  const T0 = 1_800_000_000_000;
  const DAY = 24 * 3_600_000;
  const record = (signedIn: Record<string, number>) => ({ runs: {}, bucketAt: 0, version: 0, signedIn });

  it('are known for 30 days after their last success, to the millisecond', () => {
    const failures = record({ home: T0 });
    expect(isKnown(failures, 'home', T0 + KNOWN_FOR_MS - 1)).toBe(true);
    expect(isKnown(failures, 'home', T0 + KNOWN_FOR_MS)).toBe(false);
    expect(isKnown(failures, 'elsewhere', T0)).toBe(false);
    expect(isKnown(undefined, 'home', T0)).toBe(false);
    expect(KNOWN_FOR_MS).toBe(30 * DAY);
  });

  it(`keep the ${KNOWN_SLOTS} most recent: a new one makes room by forgetting the oldest, and stale ones go`, () => {
    const full = record(Object.fromEntries(Array.from({ length: KNOWN_SLOTS }, (_, i) => [`s${i}`, T0 + i])));
    expect(signInsToForget(full, 'new', T0 + 10)).toEqual(['s0']);
    expect(signInsToForget(full, 's3', T0 + 10)).toEqual([]); // signing in again takes no new place
    expect(signInsToForget(record({ old: T0 - KNOWN_FOR_MS, fresh: T0 }), 'new', T0)).toEqual(['old']);
    expect(signInsToForget(undefined, 'new', T0)).toEqual([]);
  });

  it('forget the oldest by the time of their last success, not by the order the record holds them in', () => {
    const times = [5, 1, 7, 3, 8, 2, 6, 4];
    const shuffled = record(Object.fromEntries(times.map((t) => [`at${t}`, T0 + t])));
    expect(signInsToForget(shuffled, 'new', T0 + 10)).toEqual(['at1']);
    const reversed = record(Object.fromEntries(times.map((t) => [`at${t}`, T0 + 9 - t])));
    expect(signInsToForget(reversed, 'new', T0 + 10)).toEqual(['at8']);
  });

  it('forget each stale one once, one exactly 30 days old included, and count only fresh ones against the slots', () => {
    const fresh = Object.fromEntries(Array.from({ length: KNOWN_SLOTS - 1 }, (_, i) => [`s${i}`, T0 + i]));
    const now = T0 + 10;
    const failures = record({ stale: now - KNOWN_FOR_MS - 1, edge: now - KNOWN_FOR_MS, ...fresh });
    expect(signInsToForget(failures, 'new', now)).toEqual(['stale', 'edge']);
  });

  it('draw on their own fifth of the ceiling; strangers on the rest; under 5 an hour, one bucket for all', () => {
    const failures = record({ home: T0 });
    expect(knownShare(policy)).toBe(20);
    expect(budgetFor(failures, 'home', T0, policy)).toEqual({
      field: 'knownBucketAt',
      policy: { ...policy, failureLimit: 20 },
      knownSince: T0 - KNOWN_FOR_MS,
    });
    expect(budgetFor(failures, 'stranger', T0, policy)).toEqual({
      field: 'bucketAt',
      policy: { ...policy, failureLimit: 80 },
    });
    const small = { ...policy, failureLimit: 4 };
    expect(knownShare(small)).toBe(0);
    expect(budgetFor(failures, 'home', T0, small)).toEqual({ field: 'bucketAt', policy: small });
    expect(knownShare({ ...policy, failureLimit: 5 })).toBe(1);
  });
});

describe('the runs a record keeps', () => {
  const policy = DEFAULT_LOCKOUT_POLICY;
  const T0 = 1_800_000_000_000;

  it(`a source beyond ${SOURCE_SLOTS} takes the place of the run whose lockout ends first, the older on a tie`, () => {
    // Both end at T0 + 60 s: one locked by its fifth failure at T0, one with a single failure then.
    const tied = {
      locked: { consecutive: 5, lastFailureAt: T0 },
      single: { consecutive: 1, lastFailureAt: T0 + 60_000 },
    };
    const later = Object.fromEntries(
      Array.from({ length: SOURCE_SLOTS - 2 }, (_, i) => [
        `later${i}`,
        { consecutive: 1, lastFailureAt: T0 + 61_000 + i },
      ]),
    );
    const failures = (runs: Record<string, { consecutive: number; lastFailureAt: number }>) => ({
      runs,
      bucketAt: 0,
      version: 1,
    });
    expect(runsToEvict(failures({ ...tied, ...later }), 'new', policy)).toEqual(['locked']);
    expect(runsToEvict(failures({ single: tied.single, ...later, locked: tied.locked }), 'new', policy)).toEqual([
      'locked',
    ]);
    expect(runsToEvict(failures({ ...later, single: tied.single, locked: tied.locked }), 'new', policy)).toEqual([
      'locked',
    ]);
  });
});

describe('the name as a whole', () => {
  const policy = DEFAULT_LOCKOUT_POLICY;
  const T0 = 1_800_000_000_000;
  /** The strangers' part of the ceiling: 80 an hour, 40 at once, then one every 90 s. */
  const STRANGERS = { ...policy, failureLimit: 80 };
  const strangersFailing = (count: number) => {
    let stored: AccountFailures | undefined;
    for (let i = 0; i < count; i++) {
      const record = afterFailure(
        { consecutive: 0, lastFailureAt: 0, bucketAt: stored?.bucketAt ?? 0, version: 0 },
        T0,
        STRANGERS,
      );
      stored = withRecord(stored, `stranger${i}`, record, policy);
    }
    return stored as AccountFailures;
  };

  it('is locked for every new source once strangers spend their part of the ceiling, until it frees a failure', () => {
    expect(lockedEverywhereUntil(undefined, policy)).toBe(0);
    expect(lockedEverywhereUntil(strangersFailing(39), policy)).toBeLessThanOrEqual(T0);
    expect(lockedEverywhereUntil(strangersFailing(40), policy)).toBe(T0 + 90_000);
  });

  it('is forgotten once both buckets are full again and every run is forgotten (epoch seconds)', () => {
    const hour = 3_600_000;
    expect(failuresForgottenAt({ runs: {}, bucketAt: T0, knownBucketAt: T0 + hour, version: 1 }, policy)).toBe(
      (T0 + hour) / 1000,
    );
    expect(failuresForgottenAt({ runs: {}, bucketAt: T0 + hour, knownBucketAt: T0, version: 1 }, policy)).toBe(
      (T0 + hour) / 1000,
    );
    expect(failuresForgottenAt({ runs: {}, bucketAt: T0 + hour, version: 1 }, policy)).toBe((T0 + hour) / 1000);
  });
});
