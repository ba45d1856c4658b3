import { randomUUID } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountFailures } from '../../auth/account-failures';
import type { AccountStore } from '../../auth/ports';
import type { Account } from '../../auth/types';
import { isConditionalCheckFailure } from '../errors';
import {
  type AccountItem,
  accountKey,
  decoyAttributes,
  isUserItem,
  toAccount,
  toFailures,
  toRunsAttribute,
} from './account-items';
import { scanAccounts } from './scan-accounts';

/** An account name with a failure record, as the users tool lists them. */
export interface FailureListing {
  /** The user's name; a name that is nobody's is not stored, only its key. */
  username?: string;
  /** The item's key (`ACCOUNT#…`), which is all that identifies a name that is nobody's. */
  key: string;
  isUser: boolean;
  failures: AccountFailures;
}

/** Failure records of account names (docs/security.md, "Online guessing"), on the items of the names. */
export class DynamoAccountStore implements AccountStore {
  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tableName: string,
  ) {}

  /**
   * The user and the failure record of a name in one GetItem (eventually consistent, as the user
   * lookup alone was), whatever the name: every name costs the same one read of a fixed-length key.
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
  async replaceFailures(username: string, read: Account, next: AccountFailures, expiresAtSeconds: number) {
    const writer = randomUUID();
    const isUser = read.user !== undefined;
    const decoys = !isUser && read.failures === undefined; // with a name's first failure record
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(username),
          UpdateExpression:
            'SET failRuns = :runs, bucketAt = :bucket, failVersion = :version, failWriter = :writer, ' +
            // A user's item never expires: it keeps the same date under another name, so both writes are alike.
            (isUser ? 'failForgottenAt = :expires' : 'expiresAt = :expires') +
            (decoys
              ? ', decoyName = :decoyName, decoyRealm = :decoyRealm, decoyHa1Md5 = :decoyMd5, decoyHa1Sha256 = :decoySha256'
              : ''),
          ConditionExpression:
            `${read.failures ? 'failVersion = :seen' : 'attribute_not_exists(failVersion)'} AND ` +
            (isUser ? 'attribute_exists(ha1Sha256)' : 'attribute_not_exists(ha1Sha256)'),
          ExpressionAttributeValues: {
            ':runs': toRunsAttribute(next),
            ':bucket': next.bucketAt,
            ':version': next.version,
            ':writer': writer,
            ':expires': expiresAtSeconds,
            ...(read.failures && { ':seen': read.failures.version }),
            ...(decoys && decoyAttributes()),
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
   * Lifts every lockout of a name, for every client source: the failure record goes (and with it a
   * name's item that is nobody's). False when the name had no failure record.
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
            UpdateExpression: 'REMOVE failRuns, bucketAt, failVersion, failWriter, failForgottenAt',
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

  /** Every name with a failure record, users first (by name) then names that are nobody's (by key). */
  async listFailures(): Promise<FailureListing[]> {
    const listings: FailureListing[] = [];
    for await (const page of scanAccounts(this.client, this.tableName, 'failVersion')) {
      for (const item of (page.Items ?? []) as AccountItem[]) {
        const failures = toFailures(item);
        if (!failures) continue;
        const isUser = isUserItem(item);
        listings.push({ ...(isUser && { username: item.username }), key: item.pk, isUser, failures });
      }
    }
    const label = (listing: FailureListing) => listing.username ?? listing.key;
    return listings.sort((a, b) => Number(b.isUser) - Number(a.isUser) || label(a).localeCompare(label(b)));
  }

  protected async item(username: string, latest: boolean): Promise<AccountItem | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: accountKey(username), ...(latest && { ConsistentRead: true }) }),
    );
    return Item as AccountItem | undefined;
  }
}
