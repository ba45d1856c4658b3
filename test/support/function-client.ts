import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { observeDynamoClients } from '../../shared/store/dynamodb-client';

/**
 * The DynamoDB clients the functions make on their first use, caught as they are made (as npm
 * start's call log is attached): the fault tests inject failures into their middleware, so no
 * function carries a seam for them. `observe` must be the very module the functions use; `firstUse`
 * makes their first DynamoDB calls.
 */
export const catchFunctionClients = async (
  observe: typeof observeDynamoClients,
  firstUse: () => Promise<unknown>,
): Promise<DynamoDBClient[]> => {
  const made: DynamoDBClient[] = [];
  observe((client) => made.push(client));
  await firstUse();
  if (made.length === 0) throw new Error('the first use made no DynamoDB client: was it made before?');
  return made;
};

/** A document client on `client`'s middleware stack (shared, as lib-dynamodb shares it), marshalling as the service's. */
export const documentClientOn = (client: DynamoDBClient): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
