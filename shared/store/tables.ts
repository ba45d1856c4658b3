/**
 * Key schemas of the service's tables, in one place: the CDK stack and the local table bootstrap
 * both build their tables from these definitions.
 */
export type KeyType = 'S' | 'N';

export interface KeyAttribute {
  name: string;
  type: KeyType;
}

export interface IndexDefinition {
  indexName: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
}

export interface TableDefinition {
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  indexes: IndexDefinition[];
  /** Attribute holding an epoch-seconds expiry that DynamoDB's TTL clean-up reads. */
  timeToLiveAttribute?: string;
}

/**
 * The books table holds four kinds of item (shared/store/books/book-items.ts builds them):
 * - books:         pk = "BOOKS#<id div 64>", sk = id; index keys authorShard (id mod 2, author),
 *                  yearId (year, id) and yearShard (id mod 16, year)
 * - end marks:     pk = "BOOKS#<r>", sk = 64·(r+1) − 0.5, rangeMark: a later range was opened
 * - ISBN claims:   pk = "ISBN#<normalised>", sk = 0, bookId
 * - the id blocks: pk = "ID_BLOCKS",         sk = 0, highMark (the last id reserved by any container),
 *                  layout ("ranges" once no book is left in the older BOOK#<id mod 32> layout),
 *                  rangeMarks ("complete" once every opened range has its end mark), authorIndex
 *                  ("two-shards" once every book has its two-shard author keys), fit<size>,
 *                  listCount and listCountedAt (the list cap's remembered count)
 * - Idempotency-Key records: pk = "IDEMPOTENCY#<digest of user and key>", sk = 0, expiring (TTL expiresAt)
 * Books sit in id ranges of 64, each busy container writing a range of its own, so a page of the
 * list is one Query; a page filtered by author, or by author and year, two (one per author shard);
 * by year alone, one per year shard (docs/data-model.md).
 */
/** The id-blocks item's partition key: the one item the list function may write (its IAM grant names it). */
export const ID_BLOCKS_PARTITION = 'ID_BLOCKS';

export const BOOKS_TABLE: TableDefinition = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'N' },
  indexes: [
    {
      indexName: 'byAuthorShard',
      partitionKey: { name: 'authorShard', type: 'S' },
      sortKey: { name: 'sk', type: 'N' },
    },
    {
      indexName: 'byYearShard',
      partitionKey: { name: 'yearShard', type: 'S' },
      sortKey: { name: 'sk', type: 'N' },
    },
    {
      // Added last, to a table with the other two: DynamoDB adds one index per table update, so each is a deployment.
      indexName: 'byAuthorYear',
      partitionKey: { name: 'authorShard', type: 'S' },
      sortKey: { name: 'yearId', type: 'S' },
    },
  ],
  timeToLiveAttribute: 'expiresAt',
};

/**
 * Account names (pk = "ACCOUNT#<SHA-256 of the name>": users, failure records), used Digest nonces
 * (pk = "NONCE#<nonce>", expiring) and secrets (pk = "SECRET#<name>").
 */
export const AUTH_TABLE: TableDefinition = {
  partitionKey: { name: 'pk', type: 'S' },
  indexes: [],
  timeToLiveAttribute: 'expiresAt',
};
