import type { BookStoreUse } from '../books/ports';

/**
 * What each function's use of the store sends to DynamoDB, as IAM names the actions: the one
 * declaration the stack grants from (infra/constructs/tables.ts) and `npm run test:permissions`
 * holds against the calls recorded, so no function is granted an action it never sends.
 * TransactWriteItems is authorised per item action inside it (Put, Update, Delete).
 */
export interface TableAccess {
  /** Item actions (and Query) on the table itself. */
  readonly table: readonly DynamoDbAction[];
  /** Query on each of the table's named indexes. */
  readonly indexes?: readonly DynamoDbAction[];
  /** Actions allowed on the id-blocks item alone (its partition key, by IAM's dynamodb:LeadingKeys). */
  readonly idBlocksItem?: readonly DynamoDbAction[];
}

export type DynamoDbAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:Query'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem';

/**
 * Every use starts with the schema check, a GetItem of the id-blocks item (schema-version.ts).
 * A create reserves ids and stamps a new table (UpdateItem, id-blocks item only) and puts the book,
 * its ISBN claim and key record; an update may move the claim (Put and Delete); the list counts
 * (Query, table and indexes) and remembers its verdict on the id-blocks item (remembered-list-count.ts).
 */
export const BOOKS_TABLE_ACCESS = {
  read: { table: ['dynamodb:GetItem'] },
  list: {
    table: ['dynamodb:Query'],
    indexes: ['dynamodb:Query'],
    idBlocksItem: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  },
  create: { table: ['dynamodb:GetItem', 'dynamodb:PutItem'], idBlocksItem: ['dynamodb:UpdateItem'] },
  update: { table: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'] },
  delete: { table: ['dynamodb:GetItem', 'dynamodb:DeleteItem'] },
} as const satisfies Record<BookStoreUse, TableAccess>;

/** The authorizer: reads an account, makes the nonce key (PutItem), counts nonce uses, failures and lockouts (UpdateItem). */
export const AUTHORIZER_AUTH_TABLE_ACCESS = {
  table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
} as const satisfies TableAccess;
