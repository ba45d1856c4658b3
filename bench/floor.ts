import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/**
 * The floor: the smallest function that can serve a DynamoDB-backed route, one DocumentClient
 * GetCommand. Every function's bundle size and import time are compared with this one's, built
 * with the same options. Its client is made on the first request, as the functions make theirs, so
 * import times compare the code each bundle loads and runs at module scope, not where a client is built.
 */
let client: DynamoDBDocumentClient | undefined;

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  client ??= DynamoDBDocumentClient.from(new DynamoDBClient({}));
  const { Item } = await client.send(
    new GetCommand({
      TableName: process.env.BOOKS_TABLE_NAME,
      Key: { pk: 'BOOK', sk: Number(event.pathParameters?.id) },
    }),
  );
  return Item ? { statusCode: 200, body: JSON.stringify(Item) } : { statusCode: 404, body: '' };
};
