import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LayoutState } from './layout-state';

/** What the book store's parts share: the client, the table, the clock idempotency records expire by, and what this container knows of the layout. */
export interface BookStoreContext {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The time in epoch seconds. */
  nowSeconds: () => number;
  layout: LayoutState;
}
