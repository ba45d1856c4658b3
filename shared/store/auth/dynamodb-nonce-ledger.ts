import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NonceLedger } from '../../auth/ports';
import { isConditionalCheckFailure } from '../errors';

/**
 * Used nonces, one item each holding the highest count accepted on it: one conditional write per
 * use, which succeeds only for a count above that one (a nonce never used has none), so every
 * (nonce, nc) pair passes once. DynamoDB's TTL removes an item once its nonce could no longer be used.
 */
export class DynamoNonceLedger implements NonceLedger {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async use(nonce: string, count: number, expiresAtEpochSeconds: number) {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `NONCE#${nonce}` },
          UpdateExpression: 'SET #count = :count, expiresAt = :expiresAt',
          // An item without a count (written as spent before nonces were counted) stays spent.
          ConditionExpression: 'attribute_not_exists(pk) OR #count < :count',
          ExpressionAttributeNames: { '#count': 'nc' },
          ExpressionAttributeValues: { ':count': count, ':expiresAt': expiresAtEpochSeconds + 60 },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }
}
