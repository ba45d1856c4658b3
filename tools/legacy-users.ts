import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { StoredUser } from '../shared/auth/types';
import { toUserItem } from '../shared/store/account-items';
import { isConditionalCheckFailure } from '../shared/store/errors';

/** Where users were kept before items were keyed by a digest of the name (account-items.ts). */
const LEGACY_PREFIX = 'USER#';

/**
 * Moves every user still under `USER#<name>` to its `ACCOUNT#<digest>` item and removes the old
 * item (with its failure record, so lockouts kept there end). A user already stored under the new
 * key (added again since) keeps that one. Returns the names moved and the names kept.
 */
export const migrateLegacyUsers = async (client: DynamoDBDocumentClient, tableName: string) => {
  const moved: string[] = [];
  const kept: string[] = [];
  const pages = paginateScan(
    { client },
    {
      TableName: tableName,
      FilterExpression: 'begins_with(pk, :legacy) AND attribute_exists(ha1Sha256)',
      ExpressionAttributeValues: { ':legacy': LEGACY_PREFIX },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const user: StoredUser = {
        username: item.username,
        realm: item.realm,
        ha1: { MD5: item.ha1Md5, 'SHA-256': item.ha1Sha256 },
      };
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: toUserItem(user),
            ConditionExpression: 'attribute_not_exists(ha1Sha256)',
          }),
        );
        moved.push(user.username);
      } catch (error) {
        if (!isConditionalCheckFailure(error)) throw error;
        kept.push(user.username);
      }
      await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: item.pk } }));
    }
  }
  return { moved, kept };
};
