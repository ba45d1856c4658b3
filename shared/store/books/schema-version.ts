import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BookStoreNotReadyError, isConditionalCheckFailure, SchemaVersionError } from '../errors';
import { ID_BLOCKS_KEY } from './book-items';
import type { BookStoreContext } from './book-store-context';

/**
 * The books table's shape this version reads and writes, kept on the id-blocks item. It equals the
 * number of the last step under ops/migrations/, which `npm run data:migrate` runs.
 */
export const SCHEMA_VERSION = 1;

/**
 * The oldest shape this version still serves: the last release's (releases.json), so a deploy can
 * come before the steps that run after it (expand, then contract: docs/data-model.md).
 */
export const OLDEST_SERVED_SCHEMA_VERSION = 1;

const SCHEMA_VERSION_ATTRIBUTE = 'schemaVersion';
export const MIGRATE_COMMAND = 'npm run data:migrate';

/** A table's version as the id-blocks item records it: 0 for a table no migration has stamped. */
export const schemaVersionOf = (item: Record<string, unknown> | undefined): number =>
  Number(item?.[SCHEMA_VERSION_ATTRIBUTE] ?? 0);

/** Raises a table's schemaVersion to `version`, never lowering one already higher (a condition failure then). */
export const stampSchemaVersion = (tableName: string, version: number) =>
  new UpdateCommand({
    TableName: tableName,
    Key: ID_BLOCKS_KEY,
    UpdateExpression: 'SET #version = :version',
    ConditionExpression: 'attribute_not_exists(#version) OR #version < :version',
    ExpressionAttributeNames: { '#version': SCHEMA_VERSION_ATTRIBUTE },
    ExpressionAttributeValues: { ':version': version },
  });

/**
 * Refuses a table older than the oldest shape this version serves, before anything is read or
 * written in it: BookStoreNotReadyError (503) caused by a SchemaVersionError naming the command. A
 * table with no id-blocks item holds no book yet ('absent': the first create stamps it); a table
 * ahead is served, since a step only adds what the version before can ignore (docs/data-model.md).
 */
export const checkSchemaVersion = async (context: BookStoreContext): Promise<'current' | 'absent'> => {
  const { item } = await context.idBlocks.refresh(context);
  if (item === undefined) return 'absent';
  const found = schemaVersionOf(item);
  if (found < OLDEST_SERVED_SCHEMA_VERSION) {
    const cause = new SchemaVersionError(context.tableName, found, OLDEST_SERVED_SCHEMA_VERSION, MIGRATE_COMMAND);
    throw new BookStoreNotReadyError(cause.message, { cause });
  }
  return 'current';
};

/** Stamps a new table before its first book, so no id-blocks item is ever written without a version. */
export const stampNewTable = async ({ client, tableName }: BookStoreContext): Promise<'current'> => {
  // Failing its condition, another container or a migration stamped it meanwhile, at least as high.
  await client.send(stampSchemaVersion(tableName, SCHEMA_VERSION)).catch((error: unknown) => {
    if (!isConditionalCheckFailure(error)) throw error;
  });
  return 'current';
};
