import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LayoutState } from './layout-state';
import type { OlderLayout } from './older-layout';

/**
 * What the book store's parts share: the client, the table, the clock idempotency records expire by,
 * what this container knows of the table, and the seam to a layout the table may still hold books in.
 */
export interface BookStoreContext {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The time in epoch seconds. */
  nowSeconds: () => number;
  layout: LayoutState;
  olderLayout: OlderLayout;
}
