import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { isTransactionConflict } from '../../errors';
import { cancellationOf, type NamedWrite, transactWrite } from '../../named-transactions';
import { type BookItem, bookKey, shards } from '../book-items';
import type { KeyQuery } from '../key-queries';
import type { CopyOutcome } from '../older-layout';

/*
 * Everything in this folder goes once every deployed books table has run `npm run data:migrate-layout` to
 * completion and `npm run data:check` reports no book in the older layout (docs/upgrade.md): the
 * folder and one line of dynamodb-book-store.ts.
 */

/** A table and its client: all the older layout's reads and writes need. */
export interface Table {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * The older layout, `BOOK#<id mod 32>`, read while a table migrates (npm run data:migrate-layout) and written
 * by nothing but the migration. Its prefix and the current one (`BOOKS#`) are never a prefix of
 * each other, so the two layouts share a table without a key in common.
 * @deprecated Goes with this folder once every table has migrated (docs/upgrade.md).
 */
export const LEGACY_BOOK_SHARDS = 32;
/** @deprecated Goes with this folder once every table has migrated (docs/upgrade.md). */
export const LEGACY_BOOK_PARTITION_PREFIX = 'BOOK#';

/** @deprecated Goes with this folder once every table has migrated (docs/upgrade.md). */
export const legacyBookPartition = (shard: number) => `${LEGACY_BOOK_PARTITION_PREFIX}${shard}`;
/** @deprecated Goes with this folder once every table has migrated (docs/upgrade.md). */
export const legacyBookKey = (id: number) => ({ pk: legacyBookPartition(id % LEGACY_BOOK_SHARDS), sk: id });
/** @deprecated Goes with this folder once every table has migrated (docs/upgrade.md). */
export const isLegacyBookItem = (item: { pk?: unknown }) =>
  typeof item.pk === 'string' && item.pk.startsWith(LEGACY_BOOK_PARTITION_PREFIX);

/**
 * Strongly consistent read of a book's older item, as stored (a copied one has no index keys left).
 * @deprecated Goes with this folder once every table has migrated (docs/upgrade.md).
 */
export const readLegacyBookItem = async ({ client, tableName }: Table, id: number) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: legacyBookKey(id), ConsistentRead: true }),
  );
  return Item as BookItem | undefined;
};

/**
 * Copies a book from its older item to its current key in one transaction: the new item only if
 * none is there, the old one still at the version read, and the old item's index keys removed (so
 * the indexes hold the book once). The old item itself stays until the migration's end: a list
 * that read the current layout before the copy still finds the book in the older one.
 * @deprecated Goes with this folder once every table has migrated (docs/upgrade.md).
 */
export const copyLegacyBook = async ({ client, tableName }: Table, old: BookItem): Promise<CopyOutcome> => {
  const { pk: _pk, sk: _sk, ...book } = old;
  const writes: NamedWrite<'current' | 'old'>[] = [
    {
      name: 'current',
      write: {
        Put: {
          TableName: tableName,
          Item: { ...book, ...bookKey(old.id) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    {
      name: 'old',
      write: {
        Update: {
          TableName: tableName,
          Key: legacyBookKey(old.id),
          UpdateExpression: 'REMOVE authorShard, yearShard',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': old.version },
        },
      },
    },
  ];
  try {
    await transactWrite(client, writes);
    return 'copied';
  } catch (error) {
    if (isTransactionConflict(error)) return 'conflict';
    const outcome = cancellationOf(error, writes);
    if (outcome === 'conflict') return 'conflict';
    if (outcome.failed('current')) return 'already-copied';
    return 'changed';
  }
};

/**
 * The older layout's 32 shards, read while a table still holds books there.
 * @deprecated Goes with this folder once every table has migrated (docs/upgrade.md).
 */
export const legacyShardQueries = ({ tableName }: { tableName: string }): KeyQuery[] =>
  shards(LEGACY_BOOK_SHARDS).map((shard) => ({
    query: {
      TableName: tableName,
      ScanIndexForward: true,
      ConsistentRead: true,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': legacyBookPartition(shard) },
    },
    startKey: (after: number) => ({ pk: legacyBookPartition(shard), sk: after }),
  }));
