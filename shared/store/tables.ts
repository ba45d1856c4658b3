/**
 * Key schemas of the service's tables, in one place: the CDK stack and the local table bootstrap
 * both build their tables from these definitions.
 */
type KeyType = 'S' | 'N';

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
  /** The table's change stream: what each record carries (the change events need both images). */
  streamView?: 'NEW_AND_OLD_IMAGES';
}

/** The id-blocks item's partition key: the one item the list function may write (its IAM grant names it). */
export const ID_BLOCKS_PARTITION = 'ID_BLOCKS';

/** The books table: books in id ranges, end marks, ISBN claims, the id-blocks item and Idempotency-Key records (docs/data-model.md). */
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
      indexName: 'byAuthorYear',
      partitionKey: { name: 'authorShard', type: 'S' },
      sortKey: { name: 'yearId', type: 'S' },
    },
  ],
  timeToLiveAttribute: 'expiresAt',
  streamView: 'NEW_AND_OLD_IMAGES',
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
