import { type FailureRecord, forgottenAt, type LockoutPolicy, lockedUntil, lockoutMs } from './lockout';

/**
 * The failures of one account name as stored (docs/security.md, "Online guessing"): each client
 * source (by its tag, see client-address.ts) has its own run of consecutive failures and so its own
 * lockouts; the hourly ceiling (OWASP ASVS 2.2.1's 100 an hour) is split in two buckets, one that
 * every source draws on that never signed in (strangers), one for the sources the user signed in
 * from lately. Strangers who spend theirs lock the name for every new source, never for the user at
 * a source that signed in before; the two together stay within the ceiling.
 */
export interface AccountFailures {
  /** Runs by source tag; at most SOURCE_SLOTS of them, so the record has a fixed largest size. */
  runs: Readonly<Record<string, Run>>;
  /** The strangers' hourly bucket's theoretical arrival time (lockout.ts); 0 when full. */
  bucketAt: number;
  /** The bucket of the sources that signed in (absent: full). */
  knownBucketAt?: number;
  /** Sources a success came from, by tag: when the last one did (epoch ms); at most KNOWN_SLOTS. */
  signedIn?: Readonly<Record<string, number>>;
  /** Raised by every counted failure. */
  version: number;
}

/** One source's run: failures since its last success, and when the last of them happened. */
export interface Run {
  consecutive: number;
  lastFailureAt: number;
}

/**
 * Sources one record remembers runs of. A ninth source takes the place of the one whose own lockout
 * ends (or ended) first, the older run on a tie: a guesser with many addresses gets a fresh run per
 * address but stays within the strangers' bucket, which is what bounds them.
 */
export const SOURCE_SLOTS = 8;

/** A source that signed in is known for this long after its last success (30 days). */
export const KNOWN_FOR_MS = 30 * 24 * 3_600_000;

/** Sources a record remembers as known, the most recent sign-ins kept. */
export const KNOWN_SLOTS = 8;

/**
 * The part of the hourly ceiling kept for sources that signed in: a fifth (20 of 100), the rest
 * for strangers. With a ceiling under 5 there is no separate part and every source shares one bucket.
 */
export const knownShare = (policy: LockoutPolicy): number => Math.floor(policy.failureLimit / 5);

/** Which bucket a source's failures draw on, and the policy with that bucket's hourly limit. */
export interface Budget {
  field: 'bucketAt' | 'knownBucketAt';
  policy: LockoutPolicy;
  /** For a known source: the sign-in it is known by must be this recent still, when the failure is written. */
  knownSince?: number;
}

export const isKnown = (failures: AccountFailures | undefined, source: string, now: number): boolean => {
  const at = failures?.signedIn?.[source];
  return at !== undefined && at > now - KNOWN_FOR_MS;
};

export const budgetFor = (
  failures: AccountFailures | undefined,
  source: string,
  now: number,
  policy: LockoutPolicy,
): Budget => {
  const known = knownShare(policy);
  if (known > 0 && isKnown(failures, source, now)) {
    return { field: 'knownBucketAt', policy: { ...policy, failureLimit: known }, knownSince: now - KNOWN_FOR_MS };
  }
  return { field: 'bucketAt', policy: known > 0 ? { ...policy, failureLimit: policy.failureLimit - known } : policy };
};

/** Sources to forget when `source` signs in at `now`: those known too long ago, and the oldest beyond KNOWN_SLOTS. */
export const signInsToForget = (failures: AccountFailures | undefined, source: string, now: number): string[] => {
  const others = Object.entries(failures?.signedIn ?? {}).filter(([tag]) => tag !== source);
  const stale = others.filter(([, at]) => at <= now - KNOWN_FOR_MS).map(([tag]) => tag);
  const fresh = others.filter(([, at]) => at > now - KNOWN_FOR_MS).sort(([, a], [, b]) => a - b);
  const excess = fresh.slice(0, Math.max(0, fresh.length - (KNOWN_SLOTS - 1))).map(([tag]) => tag);
  return [...stale, ...excess];
};

/** The runs to drop so that `source`, given a run, keeps the record within SOURCE_SLOTS. */
export const runsToEvict = (failures: AccountFailures | undefined, source: string, policy: LockoutPolicy): string[] => {
  const runs = { ...failures?.runs };
  delete runs[source];
  const others = Object.keys(runs).sort(
    (a, b) => sourceLockEnd(failures, a, policy) - sourceLockEnd(failures, b, policy) || ageOrder(runs, a, b),
  );
  return others.slice(0, Math.max(0, others.length - (SOURCE_SLOTS - 1)));
};

/** The lockout rules' view of one source: its run, with the account's bucket and version. */
export const recordFor = (
  failures: AccountFailures | undefined,
  source: string,
  bucket: Budget['field'] = 'bucketAt',
): FailureRecord | undefined => {
  if (!failures) return undefined;
  const run = failures.runs[source] ?? { consecutive: 0, lastFailureAt: 0 };
  return { ...run, bucketAt: failures[bucket] ?? 0, version: failures.version };
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
    for (const evicted of runsToEvict(failures, source, policy)) delete runs[evicted];
    runs[source] = { consecutive: record.consecutive, lastFailureAt: record.lastFailureAt };
  }
  return { ...failures, runs, bucketAt: record.bucketAt, version: record.version };
};

/** When a source's own lockout ends or ended (a run too short to lock: its last failure). */
const sourceLockEnd = (failures: AccountFailures | undefined, source: string, policy: LockoutPolicy) => {
  const run = failures?.runs[source];
  return run ? run.lastFailureAt + lockoutMs(run.consecutive, policy) : 0;
};

/** The older run first. */
const ageOrder = (runs: Record<string, Run>, a: string, b: string) =>
  (runs[a]?.lastFailureAt ?? 0) - (runs[b]?.lastFailureAt ?? 0);

/** Until when the strangers' bucket locks the name for every source that has not signed in (0: it does not). */
export const lockedEverywhereUntil = (failures: AccountFailures | undefined, policy: LockoutPolicy): number =>
  failures
    ? lockedUntil(
        { consecutive: 0, lastFailureAt: 0, bucketAt: failures.bucketAt, version: 0 },
        budgetFor(undefined, '', 0, policy).policy,
      )
    : 0;

/** The sources locked at `now` (by their own run or their bucket), each with the end of its lockout. */
export const lockedSources = (failures: AccountFailures, now: number, policy: LockoutPolicy) =>
  Object.keys(failures.runs)
    .map((source) => {
      const budget = budgetFor(failures, source, now, policy);
      return { source, until: lockedUntil(recordFor(failures, source, budget.field), budget.policy) };
    })
    .filter((entry) => entry.until > now);

/** When no part of the record changes any answer: a name that is nobody's may expire then (epoch seconds). */
export const failuresForgottenAt = (failures: AccountFailures, policy: LockoutPolicy): number =>
  Math.max(
    Math.ceil(Math.max(failures.bucketAt, failures.knownBucketAt ?? 0) / 1000),
    ...Object.keys(failures.runs).map((source) => forgottenAt(recordFor(failures, source) as FailureRecord, policy)),
  );
