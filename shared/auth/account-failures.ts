import { type FailureRecord, forgottenAt, type LockoutPolicy, lockedUntil, lockoutMs } from './lockout';

/**
 * The failures of one account name as stored (docs/security.md, "Online guessing"): the hourly
 * ceiling counts every failure from anywhere, while each client source (by its tag, see
 * client-address.ts) has its own run of consecutive failures and so its own lockouts. A stranger
 * who locks the name from one address does not lock out the real user at another; only the ceiling
 * (OWASP ASVS 2.2.1's 100 an hour) locks the name everywhere.
 */
export interface AccountFailures {
  /** Runs by source tag; at most SOURCE_SLOTS of them, so the record has a fixed largest size. */
  runs: Readonly<Record<string, Run>>;
  /** The hourly bucket's theoretical arrival time (lockout.ts). */
  bucketAt: number;
  /** Raised by every write, so each write applies to the record it was computed from. */
  version: number;
}

/** One source's run: failures since its last success, and when the last of them happened. */
export interface Run {
  consecutive: number;
  lastFailureAt: number;
}

/**
 * Sources one record remembers. A ninth source takes the place of the one whose own lockout ends
 * (or ended) first, the older run on a tie: a guesser with many addresses gets a fresh
 * run per address but stays under the ceiling, which is what bounds guessing.
 */
export const SOURCE_SLOTS = 8;

/** The lockout rules' view of one source: its run, with the account's bucket and version. */
export const recordFor = (failures: AccountFailures | undefined, source: string): FailureRecord | undefined => {
  if (!failures) return undefined;
  const run = failures.runs[source] ?? { consecutive: 0, lastFailureAt: 0 };
  return { ...run, bucketAt: failures.bucketAt, version: failures.version };
};

/** The stored failures once `record` (computed by the lockout rules for `source`) replaces that source's view. */
export const withRecord = (
  failures: AccountFailures | undefined,
  source: string,
  record: FailureRecord,
  policy: LockoutPolicy,
): AccountFailures => {
  const runs = { ...failures?.runs };
  delete runs[source];
  if (record.consecutive > 0) {
    const others = Object.keys(runs).sort(
      (a, b) => sourceLockEnd(failures, a, policy) - sourceLockEnd(failures, b, policy) || ageOrder(runs, a, b),
    );
    for (const evicted of others.slice(0, Math.max(0, others.length - (SOURCE_SLOTS - 1)))) delete runs[evicted];
    runs[source] = { consecutive: record.consecutive, lastFailureAt: record.lastFailureAt };
  }
  return { runs, bucketAt: record.bucketAt, version: record.version };
};

/** When a source's own lockout ends or ended (a run too short to lock: its last failure). */
const sourceLockEnd = (failures: AccountFailures | undefined, source: string, policy: LockoutPolicy) => {
  const run = failures?.runs[source];
  return run ? run.lastFailureAt + lockoutMs(run.consecutive, policy) : 0;
};

/** The older run first. */
const ageOrder = (runs: Record<string, Run>, a: string, b: string) =>
  (runs[a]?.lastFailureAt ?? 0) - (runs[b]?.lastFailureAt ?? 0);

/** Until when the ceiling locks the name for every source (0: it does not). */
export const lockedEverywhereUntil = (failures: AccountFailures | undefined, policy: LockoutPolicy): number =>
  failures ? lockedUntil({ consecutive: 0, lastFailureAt: 0, bucketAt: failures.bucketAt, version: 0 }, policy) : 0;

/** The sources locked at `now`, each with the end of its lockout. */
export const lockedSources = (failures: AccountFailures, now: number, policy: LockoutPolicy) =>
  Object.keys(failures.runs)
    .map((source) => ({ source, until: lockedUntil(recordFor(failures, source), policy) }))
    .filter((entry) => entry.until > now);

/** When no part of the record changes any answer: a name that is nobody's may expire then (epoch seconds). */
export const failuresForgottenAt = (failures: AccountFailures, policy: LockoutPolicy): number =>
  Math.max(
    Math.ceil(failures.bucketAt / 1000),
    ...Object.keys(failures.runs).map((source) => forgottenAt(recordFor(failures, source) as FailureRecord, policy)),
  );
