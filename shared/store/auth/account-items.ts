import { createHash, randomBytes } from 'node:crypto';
import type { AccountFailures, Run } from '../../auth/account-failures';
import { roleOrReader } from '../../auth/roles';
import type { Account, StoredUser } from '../../auth/types';

/**
 * How an account name is kept in the auth table. Every name, a user's or not, has one item under
 * `ACCOUNT#<SHA-256 of the name, base64url>`: a key of fixed length whatever the name (a client may
 * send a name of kilobytes), and one that does not hold the name. A user's item holds the name as an
 * attribute; a name that is nobody's gets an item only with its first failure, and that item holds
 * nothing of the name, so its size is the same for every name (docs/security.md gives the bytes).
 *
 * The digest is not keyed: the key is never shown to a client, DynamoDB hashes partition keys again,
 * so knowing a key gains nothing; and a keyed digest would tie every user's item to a secret that
 * could then never be rotated.
 */
export const ACCOUNT_PREFIX = 'ACCOUNT#';

export const accountKey = (username: string) => ({
  pk: `${ACCOUNT_PREFIX}${createHash('sha256').update(username, 'utf8').digest('base64url')}`,
});

/**
 * The item of a name: the user's attributes when it is a user, the failure record's when it has
 * one, or both. A failure record without a user expires (TTL on `expiresAt`); a user never does.
 */
export interface AccountItem {
  pk: string;
  username?: string;
  realm?: string;
  ha1Md5?: string;
  ha1Sha256?: string;
  /** The user's role; none, or one unknown, is a reader's (shared/auth/roles.ts). */
  role?: string;
  /** New with every change of the credential (StoredUser.version); absent on items written before it. */
  credentialVersion?: string;
  /** A generated machine secret (StoredUser.machine). */
  machine?: boolean;
  /** Runs by client source tag: [consecutive failures, epoch ms of the last]. */
  failRuns?: Record<string, [number, number]>;
  /** The strangers' bucket (docs/security.md, "Online guessing"). */
  bucketAt?: number;
  /** The bucket of the sources that signed in. */
  knownBucketAt?: number;
  /** Sources that signed in, by tag: epoch ms of the last success from each. */
  signedIn?: Record<string, number>;
  failVersion?: number;
  /** When a user's failure record no longer changes any answer (informational: a user never expires). */
  failForgottenAt?: number;
  expiresAt?: number;
  /** On a name that is nobody's: stand-ins of a user's attributes, of fixed sizes (see decoyAttributes). */
  decoyName?: string;
  decoyRealm?: string;
  decoyHa1Md5?: string;
  decoyHa1Sha256?: string;
}

/**
 * A name that is nobody's gets, with its first failure record, attributes of the same number and
 * about the sizes of a user's (a name, a realm-long text, two HA1-long hex strings), so that reading
 * it costs what reading a user costs: without them a user's item took measurably longer to read and
 * decode (about 30 µs locally) than a bare failure record. Never compared with anything,
 * and never derived from the name: the decoy name is 16 random characters.
 */
export const decoyAttributes = () => ({
  ':decoyName': randomBytes(8).toString('hex'),
  ':decoyRealm': 'books',
  ':decoyHa1Md5': randomBytes(16).toString('hex'),
  ':decoyHa1Sha256': randomBytes(32).toString('hex'),
});

/** The decoy attributes' names, each written with its first failure record only (`if_not_exists`). */
export const DECOYS = ['decoyName', 'decoyRealm', 'decoyHa1Md5', 'decoyHa1Sha256'] as const;

export type UserItem = Required<Pick<AccountItem, 'pk' | 'username' | 'realm' | 'ha1Md5' | 'ha1Sha256'>> &
  Pick<AccountItem, 'role' | 'machine' | 'credentialVersion'>;

export const isUserItem = (item: AccountItem | undefined): item is UserItem & AccountItem =>
  typeof item?.ha1Sha256 === 'string' && typeof item.username === 'string';

/** A credential version: random, so a put that replaces the item needs no read to make a new one. */
export const newCredentialVersion = () => randomBytes(12).toString('base64url');

export const toUser = (item: UserItem): StoredUser => {
  return {
    username: item.username,
    realm: item.realm,
    ha1: { MD5: item.ha1Md5, 'SHA-256': item.ha1Sha256 },
    // No role stored, or one no code knows (written by hand), grants the least: never a default admin.
    role: roleOrReader(item.role),
    ...(item.machine === true && { machine: true }),
    ...(item.credentialVersion !== undefined && { version: item.credentialVersion }),
  };
};

export const toUserItem = (user: StoredUser): UserItem => ({
  ...accountKey(user.username),
  username: user.username,
  realm: user.realm,
  ha1Md5: user.ha1.MD5,
  ha1Sha256: user.ha1['SHA-256'],
  ...(user.role && { role: user.role }),
  ...(user.machine === true && { machine: true }),
  ...(user.version !== undefined && { credentialVersion: user.version }),
});

export const toFailures = (item: AccountItem | undefined): AccountFailures | undefined =>
  item?.failVersion === undefined && item?.signedIn === undefined && item?.knownBucketAt === undefined
    ? undefined
    : {
        runs: Object.fromEntries(
          Object.entries(item.failRuns ?? {}).map(([source, [consecutive, lastFailureAt]]): [string, Run] => [
            source,
            { consecutive, lastFailureAt },
          ]),
        ),
        bucketAt: item.bucketAt ?? 0,
        ...(item.knownBucketAt !== undefined && { knownBucketAt: item.knownBucketAt }),
        ...(item.signedIn !== undefined && { signedIn: item.signedIn }),
        version: item.failVersion ?? 0,
      };

export const toAccount = (item: AccountItem | undefined): Account => {
  const failures = toFailures(item);
  return {
    ...(isUserItem(item) && { user: toUser(item) }),
    ...(failures && { failures }),
    stored: { runs: item?.failRuns !== undefined, signedIn: item?.signedIn !== undefined },
  };
};
