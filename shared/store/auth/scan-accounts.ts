import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { ACCOUNT_PREFIX } from './account-items';

/** The pages of a scan over the account items that carry `attribute` (administrative listings only). */
export const scanAccounts = (
  client: DynamoDBDocumentClient,
  tableName: string,
  attribute: 'failVersion' | 'ha1Sha256',
) =>
  paginateScan(
    { client },
    {
      TableName: tableName,
      FilterExpression: `begins_with(pk, :account) AND attribute_exists(${attribute})`,
      ExpressionAttributeValues: { ':account': ACCOUNT_PREFIX },
    },
  );
