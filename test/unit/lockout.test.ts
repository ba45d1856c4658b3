import { describe, expect, it } from 'vitest';
import {
  afterFailure,
  checkLockoutPolicy,
  DEFAULT_LOCKOUT_POLICY,
  type FailureRecord,
  forgottenAt,
  isLocked,
  lockedUntil,
  lockoutMs,
  parseLockoutPolicy,
  RUN_FORGOTTEN_AFTER_MS,
} from '../../shared/auth/lockout';

const policy = DEFAULT_LOCKOUT_POLICY;
const T0 = 1_800_000_000_000;
const HOUR = 3_600_000;

/** The record after `count` failures at the given times (each counted regardless of locks). */
const failures = (times: number[], p = policy) =>
  times.reduce<FailureRecord | undefined>((record, at) => afterFailure(record, at, p), undefined);

describe('the lockout policy', () => {
  it('defaults to 100 failures an hour, a lockout after 5, from 60 s doubling to 15 minutes', () => {
    expect(DEFAULT_LOCKOUT_POLICY).toEqual({
      failureLimit: 100,
      lockoutAfter: 5,
      lockoutSeconds: 60,
      lockoutMaxSeconds: 900,
    });
  });

  it('locks nothing before the fifth consecutive failure, then 60 s, doubling, capped at 900 s', () => {
    expect([1, 4].map((n) => lockoutMs(n, policy))).toEqual([0, 0]);
    expect([5, 6, 7, 8, 9, 10, 60].map((n) => lockoutMs(n, policy) / 1000)).toEqual([60, 120, 240, 480, 900, 900, 900]);
    expect(lockoutMs(10_000, policy)).toBe(900_000); // no overflow for a huge run
    expect(lockoutMs(3, { ...policy, lockoutAfter: 3, lockoutSeconds: 7, lockoutMaxSeconds: 100 })).toBe(7_000);
  });

  it('counts a run and the time of its last failure; a version per write', () => {
    const record = failures([T0, T0 + 10, T0 + 20]);
    expect(record).toMatchObject({ consecutive: 3, lastFailureAt: T0 + 20, version: 3 });
  });

  it('is locked from the fifth failure until its lockout has passed, to the millisecond', () => {
    const record = failures([T0, T0, T0, T0, T0 + 5]);
    expect(isLocked(failures([T0, T0, T0, T0]), T0, policy)).toBe(false);
    expect(lockedUntil(record, policy)).toBe(T0 + 5 + 60_000);
    expect(isLocked(record, T0 + 5 + 59_999, policy)).toBe(true);
    expect(isLocked(record, T0 + 5 + 60_000, policy)).toBe(false);
    expect(isLocked(undefined, T0, policy)).toBe(false);
    expect(lockedUntil(undefined, policy)).toBe(0);
  });

  it('forgets a run an hour after its lockout ended, not a moment before', () => {
    const record = failures([T0, T0, T0, T0, T0]); // locked until T0 + 60 s
    const end = T0 + 60_000 + RUN_FORGOTTEN_AFTER_MS;
    expect(afterFailure(record, end - 1, policy).consecutive).toBe(6);
    expect(afterFailure(record, end, policy).consecutive).toBe(1);
    expect(RUN_FORGOTTEN_AFTER_MS).toBe(HOUR);
  });

  describe('the hourly limit', () => {
    const noRuns = { ...policy, lockoutAfter: 1_000_000 };

    it('lets half the limit through at once, then one every 3,600 s / (limit / 2)', () => {
      const fifty = failures(Array(50).fill(T0), noRuns);
      expect(isLocked(failures(Array(49).fill(T0), noRuns), T0, noRuns)).toBe(false);
      expect(lockedUntil(fifty, noRuns)).toBe(T0 + 72_000);
      expect(isLocked(fifty, T0 + 71_999, noRuns)).toBe(true);
      expect(isLocked(fifty, T0 + 72_000, noRuns)).toBe(false);
      const fiftyOne = afterFailure(fifty, T0 + 72_000, noRuns);
      expect(lockedUntil(fiftyOne, noRuns)).toBe(T0 + 144_000);
    });

    it('never counts more than the limit in any rolling hour, for odd and small limits too', () => {
      for (const failureLimit of [1, 2, 3, 10, 100]) {
        const p = { ...noRuns, failureLimit };
        let record: FailureRecord | undefined;
        const counted: number[] = [];
        for (let t = T0; t < T0 + 4 * HOUR; t += 7_000) {
          if (isLocked(record, t, p)) continue;
          record = afterFailure(record, t, p);
          counted.push(t);
        }
        const most = Math.max(
          ...counted.map((start) => counted.filter((at) => at >= start && at <= start + HOUR).length),
        );
        expect(most, `limit ${failureLimit}`).toBeLessThanOrEqual(failureLimit);
        expect(most, `limit ${failureLimit}`).toBeGreaterThanOrEqual(Math.ceil(failureLimit / 2));
      }
    });

    it('refills from the time of the failure, not from an old bucket', () => {
      const old = failures([T0], noRuns) as FailureRecord;
      expect(afterFailure(old, T0 + 10 * HOUR, noRuns).bucketAt).toBe(T0 + 10 * HOUR + 72_000);
      expect(afterFailure(old, T0 + 1, noRuns).bucketAt).toBe(T0 + 144_000);
    });
  });

  it('is forgotten (may expire) an hour after its lockout, or when the bucket is full again if later', () => {
    const record = failures([T0, T0, T0, T0, T0]) as FailureRecord;
    expect(forgottenAt(record, policy)).toBe((T0 + 60_000 + HOUR) / 1000);
    const full = { ...record, bucketAt: T0 + 5 * HOUR + 500 };
    expect(forgottenAt(full, policy)).toBe(Math.ceil((T0 + 5 * HOUR + 500) / 1000));
  });
});

describe('parsing and checking the policy', () => {
  const from = (values: Record<string, string>) => parseLockoutPolicy((field) => values[field]);

  it('takes the defaults for missing or blank values, and whole numbers otherwise', () => {
    expect(from({})).toEqual(DEFAULT_LOCKOUT_POLICY);
    expect(from({ failureLimit: ' ' })).toEqual(DEFAULT_LOCKOUT_POLICY);
    expect(from({ failureLimit: '20', lockoutAfter: '3', lockoutSeconds: ' 30 ', lockoutMaxSeconds: '30' })).toEqual({
      failureLimit: 20,
      lockoutAfter: 3,
      lockoutSeconds: 30,
      lockoutMaxSeconds: 30,
    });
  });

  it.each(['0', '-1', '1.5', 'ten', '1e3', '99999999999999999999'])('refuses %s, naming the option', (value) => {
    expect(() => from({ lockoutAfter: value })).toThrow(
      new RangeError(`lockoutAfter="${value}" is not a positive whole number`),
    );
  });

  it('refuses a longest lockout shorter than the first, with the names given', () => {
    expect(() => from({ lockoutSeconds: '600', lockoutMaxSeconds: '599' })).toThrow(
      new RangeError('lockoutMaxSeconds must be at least lockoutSeconds'),
    );
    expect(() =>
      checkLockoutPolicy({ ...DEFAULT_LOCKOUT_POLICY, lockoutSeconds: 2, lockoutMaxSeconds: 1 }, (f) => `X_${f}`),
    ).toThrow('X_lockoutMaxSeconds must be at least X_lockoutSeconds');
    expect(() => checkLockoutPolicy({ ...DEFAULT_LOCKOUT_POLICY, failureLimit: 0 })).toThrow(
      'failureLimit="0" is not a positive whole number',
    );
    expect(checkLockoutPolicy({ ...DEFAULT_LOCKOUT_POLICY, lockoutMaxSeconds: 60 })).toMatchObject({
      lockoutMaxSeconds: 60,
    });
  });
});
