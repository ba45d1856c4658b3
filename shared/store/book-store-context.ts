import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** What the book store's parts share: the client, the table, and the clock idempotency records expire by. */
export interface BookStoreContext {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The time in epoch seconds. */
  nowSeconds: () => number;
}
