import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Time limits are set on purpose, well below the functions' timeout, so a DynamoDB outage ends in
 * the generic 500 within a bounded time instead of a gateway timeout.
 */
const CLIENT_LIMITS: DynamoDBClientConfig = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
};

/**
 * A client for Lambda, or for DynamoDB Local when `DYNAMODB_ENDPOINT` is set (DynamoDB
 * Local accepts any credentials, so fixed ones keep a laptop without AWS configuration working).
 */
export const createDynamoClient = (endpoint = process.env.DYNAMODB_ENDPOINT): DynamoDBClient => {
  const local: DynamoDBClientConfig = endpoint
    ? {
        endpoint,
        region: process.env.AWS_REGION ?? 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }
    : {};
  return new DynamoDBClient({ ...CLIENT_LIMITS, ...local });
};

export const createDocumentClient = (endpoint = process.env.DYNAMODB_ENDPOINT): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(createDynamoClient(endpoint), { marshallOptions: { removeUndefinedValues: true } });
