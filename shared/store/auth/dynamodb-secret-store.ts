import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SecretStore } from '../../auth/ports';
import { isConditionalCheckFailure, StoreInvariantError } from '../errors';

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
      if (winner === undefined) {
        throw new StoreInvariantError(`Secret ${name} was created and removed at once`, { cause: error });
      }
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
