import type { Run } from './account-failures';
import type { Role } from './roles';
import type { Account, StoredUser } from './types';

/*
 * The ports through which authentication reaches storage; the adapters (shared/store) implement
 * them, the composition root (functions/authorizer/wiring.ts) picks the adapters.
 */

/** Users, as the authorizer and the users tool need them. */
export interface UserStore {
  get(username: string): Promise<StoredUser | undefined>;
  put(user: StoredUser): Promise<void>;
  /** Gives an existing user another role; false when there was no such user. */
  setRole(username: string, role: Role): Promise<boolean>;
  /** false when there was no such user. */
  delete(username: string): Promise<boolean>;
  list(): Promise<StoredUser[]>;
}

/**
 * Users and their failure records, kept together so that the authorizer reads both with one
 * request. A name that is nobody's has a failure record too (it may expire), and never a user.
 */
export interface AccountStore {
  /** One read; `latest` asks for a strongly consistent one (after a lost race). */
  account(username: string, latest?: boolean): Promise<Account>;
  /**
   * Admits one attempt's outcome in one conditional write, only while what `change` was computed
   * from still holds (the source's run, its bucket not empty, its sign-in still recent): every
   * outcome of every container is ordered by these writes, so a password counts (and a right one
   * is let in) only when it is among those the limit admits. False, writing nothing, when the
   * record changed first (or the user is gone): read it again, strongly consistent, and decide again.
   */
  admit(username: string, read: Account, change: AttemptChange): Promise<boolean>;
}

/** The bucket a source draws on, as a conditional write checks it (lockout.ts, bucketLimits). */
interface BucketCheck {
  field: 'bucketAt' | 'knownBucketAt';
  /** Not empty while its arrival time is at most this. */
  atMost: number;
}

/** What one attempt changes on the record of its account name, and on what condition. */
export type AttemptChange = FailureChange | SuccessChange;

interface ChangeBase {
  source: string;
  /** The source's run as read: the change applies only while it is still this one (undefined: none). */
  seenRun: Run | undefined;
  bucket: BucketCheck;
  /** For a source counted as known: its sign-in must still be at least this recent. */
  knownSince?: number;
}

/** A wrong password (or an unknown name): one more failure, on the source's run and its bucket. */
export interface FailureChange extends ChangeBase {
  outcome: 'failure';
  now: number;
  /** The bucket's step per failure: it moves to max(its time, now) + intervalMs. */
  intervalMs: number;
  /** The source's run after this failure. */
  run: Run;
  /** Other sources' runs to drop, so the record keeps its size (whatever they hold by then). */
  evict: readonly string[];
  /** When no part of the record changes any answer any longer (epoch seconds). */
  expiresAtSeconds: number;
}

/**
 * A right password: the source's run ends and the source is remembered as signed in at `now`. A
 * `check` is a right Digest answer on a spent or expired nonce: admitted like a success (before its
 * `stale=true` can tell the client the password was right) but changing nothing, since a replayed
 * answer must neither end a run nor make its sender's address one that signed in.
 */
export interface SuccessChange extends ChangeBase {
  outcome: 'success' | 'check';
  now: number;
  /** The user's SHA-256 HA1 the password was checked against: admitted only while it is still the user's. */
  ha1Sha256: string;
  /** The credential version read (undefined: an item written before versions): admitted only while it holds. */
  credentialVersion: string | undefined;
  /** Sign-ins to forget (too old, or beyond the slots). */
  forget: readonly string[];
}

/**
 * Records the uses of Digest nonces across every function instance: a nonce is accepted again while
 * each use counts higher (its `nc`) than every use accepted before, so each (nonce, nc) pair passes once.
 */
export interface NonceLedger {
  /** true when `count` is above every count accepted on the nonce (a first use always is), false otherwise. */
  use(nonce: string, count: number, expiresAtEpochSeconds: number): Promise<boolean>;
}

/** Named secrets kept by the deployment, made on first use and the same for every container after that. */
export interface SecretStore {
  /** The secret called `name`; when there is none yet, `generate()`'s value, stored for everyone after. */
  getOrCreate(name: string, generate: () => string): Promise<string>;
}
