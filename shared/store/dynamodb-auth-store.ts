import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateScan,
} from '@aws-sdk/lib-dynamodb';
import type { NonceLedger, SecretStore, UserStore } from '../auth/ports';
import type { StoredUser } from '../auth/types';
import { isConditionalCheckFailure } from './errors';

const userKey = (username: string) => ({ pk: `USER#${username}` });

/** DynamoDB refuses a partition key longer than this (a ValidationException, not a miss). */
const MAX_PARTITION_KEY_BYTES = 2048;

/** Looked up instead of a key DynamoDB would refuse: no user item has it (user keys start with USER#). */
const NO_USER_KEY = { pk: 'NO-USER' };

interface UserItem {
  pk: string;
  username: string;
  realm: string;
  ha1Md5: string;
  ha1Sha256: string;
}

const toUser = (item: UserItem): StoredUser => ({
  username: item.username,
  realm: item.realm,
  ha1: { MD5: item.ha1Md5, 'SHA-256': item.ha1Sha256 },
});

export class DynamoUserStore implements UserStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * A name no key can hold (a client may send any length) is nobody's: undefined, after the same one
   * lookup a wrong password costs, so neither the answer nor its timing tells the two apart.
   */
  async get(username: string) {
    const key = userKey(username);
    const storable = Buffer.byteLength(key.pk, 'utf8') <= MAX_PARTITION_KEY_BYTES;
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: storable ? key : NO_USER_KEY }),
    );
    return storable && Item ? toUser(Item as UserItem) : undefined;
  }

  async put(user: StoredUser) {
    const item: UserItem = {
      ...userKey(user.username),
      username: user.username,
      realm: user.realm,
      ha1Md5: user.ha1.MD5,
      ha1Sha256: user.ha1['SHA-256'],
    };
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: item }));
  }

  async delete(username: string) {
    const { Attributes } = await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: userKey(username), ReturnValues: 'ALL_OLD' }),
    );
    return Attributes !== undefined;
  }

  /** An administrative listing: scans the small auth table for user items. */
  async list() {
    const users: StoredUser[] = [];
    const pages = paginateScan(
      { client: this.client },
      {
        TableName: this.tableName,
        FilterExpression: 'begins_with(pk, :user)',
        ExpressionAttributeValues: { ':user': 'USER#' },
      },
    );
    for await (const page of pages) users.push(...(page.Items ?? []).map((item) => toUser(item as UserItem)));
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
      if (winner === undefined) throw new Error(`Secret ${name} was created and removed at once`);
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
