import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { NonceLedger } from '../../auth/ports';
import { isConditionalCheckFailure } from '../errors';

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
