import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountFailures } from '../../auth/account-failures';
import type { AccountStore, AttemptChange } from '../../auth/ports';
import type { Account } from '../../auth/types';
import { isConditionalCheckFailure } from '../errors';
import { type AccountItem, accountKey, isUserItem, toAccount, toFailures } from './account-items';
import { attemptUpdate, updateExpressions } from './attempt-updates';
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
   * One conditional UpdateItem (attempt-updates.ts). When it loses, the caller reads again with
   * one strongly consistent read, whatever the outcome: right and wrong passwords make the same
   * calls until their outcome is admitted, so neither wins the next round more often.
   */
  async admit(username: string, read: Account, change: AttemptChange): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(username),
          ...updateExpressions(attemptUpdate(read, change)),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
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
            UpdateExpression: 'REMOVE failRuns, bucketAt, knownBucketAt, failVersion, failForgottenAt',
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
