import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/** No ids are left below 2^53−1 (JSON-safe); the store never reuses one. */
export class IdSpaceExhaustedError extends Error {
  override readonly name = 'IdSpaceExhaustedError';
}

/**
 * Gave up after the retry helper's attempts at a write that kept meeting concurrent changes. Part
 * of the book store's port (declared beside the domain's errors, so the HTTP layer maps it to 503
 * without knowing the store); re-exported here, where the store throws it.
 */
export { BookStoreNotReadyError, ConcurrentUpdateError } from '../books/errors';

/** Another item's state broke an invariant this store keeps (an ISBN claim missing or foreign). */
export class StoreInvariantError extends Error {
  override readonly name = 'StoreInvariantError';
}

/** The books table's schemaVersion is older than any this version serves: the migrations have not run on it. */
export class SchemaVersionError extends Error {
  override readonly name = 'SchemaVersionError';
  constructor(
    readonly tableName: string,
    readonly found: number,
    readonly needed: number,
    command: string,
  ) {
    super(
      `Table ${tableName} has schemaVersion ${found}; this version of the service needs ${needed}: ` +
        `run ${command} against it (with --aws for a deployed table)`,
    );
  }
}

/** A conditional write lost its condition (the item existed, or changed, or was gone). */
export const isConditionalCheckFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/**
 * A write that met another transaction on one of its items (DynamoDB then writes nothing). The SDK
 * does not retry it; the store does, like a lost optimistic-lock race, since the outcome of trying
 * again is decided by the conditions, not by the timing.
 */
export const isTransactionConflict = (error: unknown): boolean =>
  error instanceof Error && error.name === 'TransactionConflictException';

/**
 * Why a transaction was cancelled: which items failed their condition, by position, or 'conflict'
 * when it only met another transaction. Any other error (throttling, validation, an outage) is rethrown.
 */
export const cancellation = (error: unknown, count: number): boolean[] | 'conflict' => {
  if (!(error instanceof TransactionCanceledException)) throw error;
  const reasons = error.CancellationReasons ?? [];
  const failed = Array.from({ length: count }, (_, i) => reasons[i]?.Code === 'ConditionalCheckFailed');
  if (failed.some(Boolean)) return failed;
  if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return 'conflict';
  throw error;
};
