import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { isTransactionConflict } from '../../errors';
import { cancellationOf, type NamedWrite, transactWrite } from '../../named-transactions';
import { type BookItem, bookKey } from '../book-items';
import type { BookStoreContext } from '../book-store-context';

/**
 * The older layout, `BOOK#<id mod 32>`, read while a table migrates (tools/migrate.ts) and written
 * by nothing but the migration. Its prefix and the current one (`BOOKS#`) are never a prefix of
 * each other, so the two layouts share a table without a key in common.
 */
export const LEGACY_BOOK_SHARDS = 32;
export const LEGACY_BOOK_PARTITION_PREFIX = 'BOOK#';

export const legacyBookPartition = (shard: number) => `${LEGACY_BOOK_PARTITION_PREFIX}${shard}`;
export const legacyBookKey = (id: number) => ({ pk: legacyBookPartition(id % LEGACY_BOOK_SHARDS), sk: id });
export const isLegacyBookItem = (item: { pk?: unknown }) =>
  typeof item.pk === 'string' && item.pk.startsWith(LEGACY_BOOK_PARTITION_PREFIX);

/** Strongly consistent read of a book's older item, as stored (a copied one has no index keys left). */
export const readLegacyBookItem = async ({ client, tableName }: BookStoreContext, id: number) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: legacyBookKey(id), ConsistentRead: true }),
  );
  return Item as BookItem | undefined;
};

export type CopyOutcome = 'copied' | 'already-copied' | 'changed' | 'conflict';

/**
 * Copies a book from its older item to its current key in one transaction: the new item only if
 * none is there, the old one still at the version read, and the old item's index keys removed (so
 * the indexes hold the book once). The old item itself stays until the migration's end: a list
 * that read the current layout before the copy still finds the book in the older one.
 */
export const copyLegacyBook = async ({ client, tableName }: BookStoreContext, old: BookItem): Promise<CopyOutcome> => {
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
