import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UserStore } from '../../auth/ports';
import type { Role } from '../../auth/roles';
import type { StoredUser } from '../../auth/types';
import { isConditionalCheckFailure } from '../errors';
import { accountKey, newCredentialVersion, toUser, toUserItem, type UserItem } from './account-items';
import { DynamoAccountStore } from './dynamodb-account-store';
import { scanAccounts } from './scan-accounts';

/**
 * Users' credentials, on the same items as their names' failure records (account-items.ts), so the
 * authorizer reads both with one request: a success costs no more than the user lookup alone.
 */
export class DynamoUserStore extends DynamoAccountStore implements UserStore {
  async get(username: string) {
    return (await this.account(username)).user;
  }

  /**
   * Creates or replaces the user under a new credential version (requests in flight on the old
   * credential are refused); a failure record the name had goes with the old item (every lockout ends).
   */
  async put(user: StoredUser) {
    const item = toUserItem({ ...user, version: newCredentialVersion() });
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: item }));
  }

  /** Gives an existing user another role, its password and failure record kept; false when there is no such user. */
  async setRole(username: string, role: Role): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(username),
          UpdateExpression: 'SET #role = :role, credentialVersion = :version',
          ConditionExpression: 'attribute_exists(ha1Sha256)',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':role': role, ':version': newCredentialVersion() },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
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
    for await (const page of scanAccounts(this.client, this.tableName, 'ha1Sha256'))
      users.push(...(page.Items ?? []).map((item) => toUser(item as UserItem)));
    return users.sort((a, b) => a.username.localeCompare(b.username));
  }
}
