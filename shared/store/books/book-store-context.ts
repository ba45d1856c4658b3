import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IdBlocksView } from './id-blocks-view';

/** What the book store's parts share: the client, the table, the clock idempotency records expire by, and the id-blocks item as last seen. */
export interface BookStoreContext {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The time in epoch seconds. */
  nowSeconds: () => number;
  idBlocks: IdBlocksView;
}
