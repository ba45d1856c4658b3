import { randomUUID } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountFailures } from '../../auth/account-failures';
import type { AccountStore, AttemptChange } from '../../auth/ports';
import type { Account } from '../../auth/types';
import { isConditionalCheckFailure } from '../errors';
import {
  type AccountItem,
  accountKey,
  DECOYS,
  decoyAttributes,
  isUserItem,
  toAccount,
  toFailures,
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
   * One conditional UpdateItem (docs/security.md, "Online guessing"). Its condition names only what
   * the change was computed from: this source's run as read, its bucket not empty, its sign-in still
   * recent, the same kind of item (a user's, or a name's that is nobody's). So writes from other
   * sources, and successes that touch no run, never make it fail, and a bucket is moved on in place
   * (`bucketAt + interval`) rather than replaced. When a failure's condition fails, a strongly
   * consistent read tells a container's own write whose answer was lost (the SDK retried it) from
   * another's; a success written twice changes nothing more than once.
   */
  async admit(username: string, read: Account, change: AttemptChange): Promise<boolean> {
    const isUser = read.user !== undefined;
    const stored = read.stored ?? { runs: false, signedIn: false };
    const writer = randomUUID();
    const names: Record<string, string> = { '#src': change.source, '#bucket': change.bucket.field };
    const values: Record<string, unknown> = {};
    const conditions = [isUser ? 'attribute_exists(ha1Sha256)' : 'attribute_not_exists(ha1Sha256)'];
    const sets: string[] = [];
    const removes: string[] = [];
    const adds: string[] = [];

    if (change.seenRun) {
      conditions.push('failRuns.#src[0] = :seenCount AND failRuns.#src[1] = :seenAt');
      Object.assign(values, { ':seenCount': change.seenRun.consecutive, ':seenAt': change.seenRun.lastFailureAt });
    } else {
      conditions.push('attribute_not_exists(failRuns.#src)');
    }
    if (change.knownSince !== undefined) {
      conditions.push('signedIn.#src >= :knownSince');
      values[':knownSince'] = change.knownSince;
    }

    if (change.outcome === 'failure') {
      values[':now'] = change.now;
      const seenBucket = read.failures?.[change.bucket.field] ?? 0;
      if (seenBucket >= change.now) {
        conditions.push('#bucket BETWEEN :now AND :atMost');
        sets.push('#bucket = #bucket + :interval');
        Object.assign(values, { ':atMost': change.bucket.atMost, ':interval': change.intervalMs });
      } else {
        conditions.push('(attribute_not_exists(#bucket) OR #bucket < :now)');
        sets.push('#bucket = :stepped');
        values[':stepped'] = change.now + change.intervalMs;
      }
      const run = [change.run.consecutive, change.run.lastFailureAt];
      if (stored.runs) {
        conditions.push('attribute_exists(failRuns)');
        sets.push('failRuns.#src = :run');
        values[':run'] = run;
      } else {
        conditions.push('attribute_not_exists(failRuns)');
        sets.push('failRuns = :runs');
        values[':runs'] = { [change.source]: run };
      }
      // Unconditionally: a condition on the runs dropped would make every stranger's write conflict
      // with every other's (they all drop the same oldest run), and a run dropped just after it
      // changed only gives its source a fresh start, which the strangers' bucket still bounds.
      change.evict.forEach((evicted, i) => {
        names[`#evict${i}`] = evicted;
        removes.push(`failRuns.#evict${i}`);
      });
      sets.push('failWriter = :writer');
      values[':writer'] = writer;
      adds.push('failVersion :one');
      values[':one'] = 1;
      // A user's item never expires: it keeps the same date under another name, so both writes are alike.
      sets.push(isUser ? 'failForgottenAt = :expires' : 'expiresAt = :expires');
      values[':expires'] = change.expiresAtSeconds;
      // With a name's first failure record only, so later writes are shaped as a user's are.
      if (!isUser && read.failures === undefined) {
        sets.push(...DECOYS.map((name) => `${name} = if_not_exists(${name}, :${name})`));
        Object.assign(values, decoyAttributes());
      }
    } else if (change.outcome === 'check') {
      conditions.push('(attribute_not_exists(#bucket) OR #bucket <= :atMost)');
      values[':atMost'] = change.bucket.atMost;
    } else {
      conditions.push('(attribute_not_exists(#bucket) OR #bucket <= :atMost)');
      values[':atMost'] = change.bucket.atMost;
      if (change.seenRun) removes.push('failRuns.#src');
      if (stored.signedIn) {
        conditions.push('attribute_exists(signedIn)');
        sets.push('signedIn.#src = :now');
        values[':now'] = change.now;
      } else {
        conditions.push('attribute_not_exists(signedIn)');
        sets.push('signedIn = :signedIn');
        values[':signedIn'] = { [change.source]: change.now };
      }
      change.forget.forEach((tag, i) => {
        names[`#forget${i}`] = tag;
        removes.push(`signedIn.#forget${i}`);
      });
    }

    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(username),
          // A check changes nothing: an UpdateItem with a condition and no update expression.
          ...(sets.length + removes.length + adds.length > 0 && {
            UpdateExpression: [
              ...(sets.length > 0 ? [`SET ${sets.join(', ')}`] : []),
              ...(removes.length > 0 ? [`REMOVE ${removes.join(', ')}`] : []),
              ...(adds.length > 0 ? [`ADD ${adds.join(', ')}`] : []),
            ].join(' '),
          }),
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
      return change.outcome === 'failure' && (await this.item(username, true))?.failWriter === writer;
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
            UpdateExpression: 'REMOVE failRuns, bucketAt, knownBucketAt, failVersion, failWriter, failForgottenAt',
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
