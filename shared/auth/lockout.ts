/**
 * When an account stops having its passwords evaluated (docs/security.md, "Online guessing").
 *
 * Two limits, both per account name, known or not:
 * - a run of consecutive failures locks the account after `lockoutAfter` of them, for
 *   `lockoutSeconds`, doubling with each further failure up to `lockoutMaxSeconds` (Cognito's
 *   growing delays, nginx's maxtries and evasion time); a success ends the run;
 * - at most `failureLimit` failures in any rolling hour, successes or not (OWASP ASVS 2.2.1): a
 *   generic cell rate (a token bucket of `failureLimit / 2`, refilled by `failureLimit / 2` an
 *   hour), so a guesser who lets the real user in between guesses is bounded too, and no list of
 *   timestamps has to be kept: the record stays one small item.
 * A failure is counted only while the account is not locked; attempts while locked change nothing.
 */
export interface LockoutPolicy {
  /** Failures counted in any rolling hour, at most. */
  failureLimit: number;
  /** Consecutive failures before the first lockout. */
  lockoutAfter: number;
  /** The first lockout; each further failure doubles it. */
  lockoutSeconds: number;
  /** The longest lockout the schedule reaches. */
  lockoutMaxSeconds: number;
}

export const DEFAULT_LOCKOUT_POLICY: LockoutPolicy = {
  failureLimit: 100,
  lockoutAfter: 5,
  lockoutSeconds: 60,
  lockoutMaxSeconds: 900,
};

/** The failure state kept with an account name (epoch milliseconds). */
export interface FailureRecord {
  /** Failures since the last success, or since the run was forgotten. */
  consecutive: number;
  /** When the last counted failure happened. */
  lastFailureAt: number;
  /** The hourly bucket's theoretical arrival time: it is full again once this has passed. */
  bucketAt: number;
  /** Raised by every write, so each write applies to the record it was computed from. */
  version: number;
}

const HOUR_MS = 3_600_000;
/** A run of failures is forgotten this long after its lockout ended, even without a success. */
export const RUN_FORGOTTEN_AFTER_MS = HOUR_MS;

/** The bucket: `burst` failures at once, then one every `intervalMs`; together at most `failureLimit` an hour. */
const bucket = (policy: LockoutPolicy) => {
  const burst = Math.ceil(policy.failureLimit / 2);
  const refill = policy.failureLimit - burst;
  // With no refill (a limit of 1) the single failure comes back after an hour.
  const intervalMs = refill > 0 ? Math.ceil(HOUR_MS / refill) : HOUR_MS;
  return { burst, intervalMs };
};

/**
 * The bucket at `now` as a conditional write checks it: it still takes a failure while its arrival
 * time is at most `atMost`, and each failure moves the arrival time `intervalMs` on.
 */
export const bucketLimits = (policy: LockoutPolicy, now: number) => {
  const { burst, intervalMs } = bucket(policy);
  return { intervalMs, atMost: now + (burst - 1) * intervalMs };
};

/** How long the schedule locks after `consecutive` failures (0 before `lockoutAfter`). */
export const lockoutMs = (consecutive: number, policy: LockoutPolicy): number => {
  if (consecutive < policy.lockoutAfter) return 0;
  const doublings = Math.min(consecutive - policy.lockoutAfter, 40); // 2^40 s is past any maximum
  return Math.min(policy.lockoutSeconds * 2 ** doublings, policy.lockoutMaxSeconds) * 1000;
};

const runEndsAt = (record: FailureRecord, policy: LockoutPolicy) =>
  record.lastFailureAt + lockoutMs(record.consecutive, policy);

/** The run of failures still counting toward the schedule (0 once forgotten). */
const liveRun = (record: FailureRecord, now: number, policy: LockoutPolicy) =>
  now < runEndsAt(record, policy) + RUN_FORGOTTEN_AFTER_MS ? record.consecutive : 0;

/** Until when no password of the account is evaluated; at or before `now` means not locked. */
export const lockedUntil = (record: FailureRecord | undefined, policy: LockoutPolicy): number => {
  if (!record) return 0;
  const { burst, intervalMs } = bucket(policy);
  // The bucket refuses a failure while its arrival time is more than burst - 1 intervals ahead.
  const bucketEmptyUntil = record.bucketAt - (burst - 1) * intervalMs;
  return Math.max(runEndsAt(record, policy), bucketEmptyUntil);
};

export const isLocked = (record: FailureRecord | undefined, now: number, policy: LockoutPolicy) =>
  lockedUntil(record, policy) > now;

/** The record after one more failure, counted at `now` on an account that is not locked. */
export const afterFailure = (record: FailureRecord | undefined, now: number, policy: LockoutPolicy): FailureRecord => {
  const { intervalMs } = bucket(policy);
  return {
    consecutive: (record ? liveRun(record, now, policy) : 0) + 1,
    lastFailureAt: now,
    bucketAt: Math.max(record?.bucketAt ?? now, now) + intervalMs,
    version: (record?.version ?? 0) + 1,
  };
};

/** When the record no longer changes any answer: an unknown name's record may expire then (epoch seconds). */
export const forgottenAt = (record: FailureRecord, policy: LockoutPolicy): number =>
  Math.ceil(Math.max(runEndsAt(record, policy) + RUN_FORGOTTEN_AFTER_MS, record.bucketAt) / 1000);

/**
 * The policy as given, or a RangeError naming (with `name`) the first problem: every number must be
 * a positive whole number, and the longest lockout at least the first.
 */
export const checkLockoutPolicy = (
  policy: LockoutPolicy,
  name: (field: keyof LockoutPolicy) => string = (field) => field,
): LockoutPolicy => {
  for (const field of Object.keys(DEFAULT_LOCKOUT_POLICY) as (keyof LockoutPolicy)[]) {
    const value = policy[field];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`${name(field)}="${value}" is not a positive whole number`);
    }
  }
  if (policy.lockoutMaxSeconds < policy.lockoutSeconds) {
    throw new RangeError(`${name('lockoutMaxSeconds')} must be at least ${name('lockoutSeconds')}`);
  }
  return policy;
};

/**
 * The policy from texts by field (the stack's context options); a missing or empty one takes its
 * default. A RangeError names the first text that is not a positive whole number.
 */
export const parseLockoutPolicy = (
  text: (field: keyof LockoutPolicy) => string | undefined,
  name: (field: keyof LockoutPolicy) => string = (field) => field,
): LockoutPolicy => {
  const policy = { ...DEFAULT_LOCKOUT_POLICY };
  for (const field of Object.keys(policy) as (keyof LockoutPolicy)[]) {
    const value = text(field)?.trim();
    if (!value) continue;
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
      throw new RangeError(`${name(field)}="${value}" is not a positive whole number`);
    }
    policy[field] = Number(value);
  }
  return checkLockoutPolicy(policy, name);
};
