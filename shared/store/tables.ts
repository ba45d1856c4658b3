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
 * The books table holds three kinds of item:
 * - books:            pk = "BOOK",              sk = id
 * - ISBN claims:      pk = "ISBN#<normalised>", sk = 0, bookId
 * - the id counter:   pk = "COUNTER",           sk = 0, lastId
 * Books share one partition so the unfiltered list is one strongly consistent, id-ordered Query.
 */
export const BOOKS_TABLE: TableDefinition = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'N' },
  indexes: [
    {
      indexName: 'byAuthor',
      partitionKey: { name: 'authorKey', type: 'S' },
      sortKey: { name: 'sk', type: 'N' },
    },
    {
      indexName: 'byYear',
      partitionKey: { name: 'publicationYear', type: 'N' },
      sortKey: { name: 'sk', type: 'N' },
    },
  ],
};

/** Users (pk = "USER#<name>") and used Digest nonces (pk = "NONCE#<nonce>", expiring). */
export const AUTH_TABLE: TableDefinition = {
  partitionKey: { name: 'pk', type: 'S' },
  indexes: [],
  timeToLiveAttribute: 'expiresAt',
};
