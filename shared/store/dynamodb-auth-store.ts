import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { FailureRecord } from '../auth/lockout';
import type { AccountStore, NonceLedger, SecretStore, UserStore } from '../auth/ports';
import type { Account, StoredUser } from '../auth/types';
import { isConditionalCheckFailure } from './errors';

const USER_PREFIX = 'USER#';
const UNSTORABLE_PREFIX = 'LONG-NAME#';

/** DynamoDB refuses a partition key longer than this (a ValidationException, not a miss). */
const MAX_PARTITION_KEY_BYTES = 2048;

/**
 * The key of a name: `USER#<name>`, or for a name too long for any key (a client may send any
 * length) `LONG-NAME#<SHA-256 of it>`, which no user item has: such a name gets the same read,
 * the same failure record and lockouts as any other unknown name, each its own, never one shared
 * (hot) key.
 */
const accountKey = (username: string) => {
  const pk = `${USER_PREFIX}${username}`;
  if (Buffer.byteLength(pk, 'utf8') <= MAX_PARTITION_KEY_BYTES) return { pk };
  return { pk: `${UNSTORABLE_PREFIX}${createHash('sha256').update(username, 'utf8').digest('hex')}` };
};

/**
 * The item of a name: the user's attributes when it is a user, the failure record's when it has
 * one, or both. A failure record without a user expires (TTL on `expiresAt`); a user never does.
 */
interface AccountItem {
  pk: string;
  username?: string;
  realm?: string;
  ha1Md5?: string;
  ha1Sha256?: string;
  failRun?: number;
  failedAt?: number;
  bucketAt?: number;
  failVersion?: number;
  /** The write that produced this version, to recognise one's own write after a lost answer. */
  failWriter?: string;
  /** When a user's failure record no longer changes any answer (informational: a user never expires). */
  failForgottenAt?: number;
  expiresAt?: number;
  /** On a name that is nobody's: stand-ins as long as a user's attributes (see DECOY). */
  decoyName?: string;
  decoyRealm?: string;
  decoyHa1Md5?: string;
  decoyHa1Sha256?: string;
}

/**
 * A name that is nobody's gets, with its first failure record, attributes of the same number and
 * sizes as a user's (name, a realm-long text, two HA1-long hex strings), so that reading it costs
 * what reading a user costs: without them a user's item took measurably longer to read and decode
 * (about 30 µs on DynamoDB Local) than a bare failure record. They are never compared with anything.
 */
const decoyAttributes = (username: string) => ({
  ':decoyName': username,
  ':decoyRealm': 'books',
  ':decoyMd5': randomBytes(16).toString('hex'),
  ':decoySha256': randomBytes(32).toString('hex'),
});

type UserItem = Required<Pick<AccountItem, 'pk' | 'username' | 'realm' | 'ha1Md5' | 'ha1Sha256'>>;

const isUserItem = (item: AccountItem | undefined): item is UserItem & AccountItem =>
  typeof item?.ha1Sha256 === 'string' && typeof item.username === 'string';

const toUser = (item: UserItem): StoredUser => ({
  username: item.username,
  realm: item.realm,
  ha1: { MD5: item.ha1Md5, 'SHA-256': item.ha1Sha256 },
});

const toFailures = (item: AccountItem | undefined): FailureRecord | undefined =>
  item?.failVersion === undefined
    ? undefined
    : {
        consecutive: item.failRun ?? 0,
        lastFailureAt: item.failedAt ?? 0,
        bucketAt: item.bucketAt ?? 0,
        version: item.failVersion,
      };

const toAccount = (item: AccountItem | undefined): Account => {
  const failures = toFailures(item);
  return { ...(isUserItem(item) && { user: toUser(item) }), ...(failures && { failures }) };
};

/** An account name with a failure record, as the users tool lists them. */
export interface FailureListing {
  username: string;
  /** False for a name that is nobody's (its record expires); a name too long for a key is not listed. */
  isUser: boolean;
  failures: FailureRecord;
}

export class DynamoUserStore implements UserStore, AccountStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(username: string) {
    return (await this.account(username)).user;
  }

  /**
   * The user and the failure record of a name in one GetItem (eventually consistent, as the user
   * lookup alone was), whatever the name: a name no key can hold costs the same one read.
   */
  async account(username: string, latest = false): Promise<Account> {
    return toAccount(await this.item(username, latest));
  }

  /**
   * One conditional UpdateItem: it applies only to the version `read` found and to the same kind
   * of item (a user's, or a name's that is nobody's), so a failure counts exactly once however many
   * containers write at once. When the condition fails, a strongly consistent read tells a
   * container's own write whose answer was lost (the SDK retried it) from another's.
   */
  async replaceFailures(username: string, read: Account, next: FailureRecord, expiresAtSeconds: number) {
    const writer = randomUUID();
    const isUser = read.user !== undefined;
    const decoys = !isUser && read.failures === undefined; // with a name's first failure record
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(username),
          UpdateExpression:
            'SET failRun = :run, failedAt = :at, bucketAt = :bucket, failVersion = :version, failWriter = :writer, ' +
            // A user's item never expires: it keeps the same date under another name, so both writes are alike.
            (isUser ? 'failForgottenAt = :expires' : 'expiresAt = :expires') +
            (decoys
              ? ', decoyName = :decoyName, decoyRealm = :decoyRealm, decoyHa1Md5 = :decoyMd5, decoyHa1Sha256 = :decoySha256'
              : ''),
          ConditionExpression:
            `${read.failures ? 'failVersion = :seen' : 'attribute_not_exists(failVersion)'} AND ` +
            (isUser ? 'attribute_exists(ha1Sha256)' : 'attribute_not_exists(ha1Sha256)'),
          ExpressionAttributeValues: {
            ':run': next.consecutive,
            ':at': next.lastFailureAt,
            ':bucket': next.bucketAt,
            ':version': next.version,
            ':writer': writer,
            ':expires': expiresAtSeconds,
            ...(read.failures && { ':seen': read.failures.version }),
            ...(decoys && decoyAttributes(username)),
          },
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      return (await this.item(username, true))?.failWriter === writer;
    }
  }

  /**
   * Lifts a lockout: the failure record goes (and with it a name's item that is nobody's). False
   * when the name had no failure record.
   */
  async clearFailures(username: string): Promise<boolean> {
    const key = accountKey(username);
    const item = await this.item(username, true);
    if (item?.failVersion === undefined) return false;
    try {
      if (isUserItem(item)) {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            UpdateExpression: 'REMOVE failRun, failedAt, bucketAt, failVersion, failWriter, failForgottenAt',
            ConditionExpression: 'attribute_exists(ha1Sha256)',
          }),
        );
      } else {
        await this.client.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: key,
            ConditionExpression: 'attribute_not_exists(ha1Sha256)',
          }),
        );
      }
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      return this.clearFailures(username); // the user was added or removed meanwhile: clear what is there now
    }
    return true;
  }

  /** Every name with a failure record, users first then names that are nobody's, each sorted. */
  async listFailures(): Promise<FailureListing[]> {
    const listings: FailureListing[] = [];
    for await (const page of this.scanAccounts('failVersion')) {
      for (const item of (page.Items ?? []) as AccountItem[]) {
        const failures = toFailures(item);
        if (failures) {
          listings.push({ username: item.pk.slice(USER_PREFIX.length), isUser: isUserItem(item), failures });
        }
      }
    }
    return listings.sort((a, b) => Number(b.isUser) - Number(a.isUser) || a.username.localeCompare(b.username));
  }

  /** The pages of a scan over the account items that carry `attribute` (administrative listings only). */
  private scanAccounts(attribute: 'failVersion' | 'ha1Sha256') {
    return paginateScan(
      { client: this.client },
      {
        TableName: this.tableName,
        FilterExpression: `begins_with(pk, :user) AND attribute_exists(${attribute})`,
        ExpressionAttributeValues: { ':user': USER_PREFIX },
      },
    );
  }

  private async item(username: string, latest: boolean): Promise<AccountItem | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: accountKey(username), ...(latest && { ConsistentRead: true }) }),
    );
    return Item as AccountItem | undefined;
  }

  /** Creates or replaces the user; a failure record the name had goes with the old item (a lockout ends). */
  async put(user: StoredUser) {
    const item: UserItem = {
      pk: `${USER_PREFIX}${user.username}`,
      username: user.username,
      realm: user.realm,
      ha1Md5: user.ha1.MD5,
      ha1Sha256: user.ha1['SHA-256'],
    };
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: item }));
  }

  async delete(username: string) {
    const { Attributes } = await this.client
      .send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: accountKey(username),
          ConditionExpression: 'attribute_exists(ha1Sha256)',
          ReturnValues: 'ALL_OLD',
        }),
      )
      .catch((error) => {
        if (isConditionalCheckFailure(error)) return { Attributes: undefined };
        throw error;
      });
    return Attributes !== undefined;
  }

  /** An administrative listing: scans the small auth table for user items (not names that only have failures). */
  async list() {
    const users: StoredUser[] = [];
    for await (const page of this.scanAccounts('ha1Sha256'))
      users.push(...(page.Items ?? []).map((item) => toUser(item as UserItem)));
    return users.sort((a, b) => a.username.localeCompare(b.username));
  }
}

/** Spent nonces, one conditional write each; DynamoDB's TTL removes them once they could no longer be used. */
export class DynamoNonceLedger implements NonceLedger {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async spend(nonce: string, expiresAtEpochSeconds: number) {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: `NONCE#${nonce}`, expiresAt: expiresAtEpochSeconds + 60 },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }
}

/**
 * Per-deployment secrets kept in the auth table (pk = "SECRET#<name>"), such as the HMAC key of
 * Digest nonces. The first container that needs one creates it with a conditional write; one that
 * loses that race reads the winner's, so every container signs with the same key.
 */
export class DynamoSecretStore implements SecretStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getOrCreate(name: string, generate: () => string): Promise<string> {
    const key = { pk: `SECRET#${name}` };
    const existing = await this.read(key);
    if (existing !== undefined) return existing;
    const value = generate();
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...key, value },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return value;
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      const winner = await this.read(key);
      if (winner === undefined) throw new Error(`Secret ${name} was created and removed at once`, { cause: error });
      return winner;
    }
  }

  private async read(key: { pk: string }): Promise<string | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return typeof Item?.value === 'string' ? Item.value : undefined;
  }
}
