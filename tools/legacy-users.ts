import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { StoredUser } from '../shared/auth/types';
import { toUserItem } from '../shared/store/auth/account-items';
import { isConditionalCheckFailure } from '../shared/store/errors';

/** Where users were kept before items were keyed by a digest of the name (account-items.ts). */
const LEGACY_PREFIX = 'USER#';

/**
 * Copies every user still under `USER#<name>` to its `ACCOUNT#<digest>` item; a user already stored
 * under the new key (added again since) keeps that one. The earlier items stay unless
 * `removeEarlier` is set: the version before this one reads only them, so an operator copies before
 * deploying (no user sees a 401 in between), copies again after, then removes. A removed item takes
 * its failure record with it, so lockouts kept there end. Returns the names copied and the names kept.
 */
export const migrateLegacyUsers = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  { removeEarlier = false }: { removeEarlier?: boolean } = {},
) => {
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
      if (removeEarlier) await client.send(new DeleteCommand({ TableName: tableName, Key: { pk: item.pk } }));
    }
  }
  return { moved, kept };
};
