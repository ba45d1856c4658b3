import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  ConcurrentUpdateError,
  cancellation,
  IdSpaceExhaustedError,
  isConditionalCheckFailure,
  isTransactionConflict,
  SchemaVersionError,
  StoreInvariantError,
} from '../../shared/store/errors';

/** An error as DynamoDB's SDK throws it: an Error whose name is the service's exception name. */
const serviceError = (name: string) => Object.assign(new Error(`${name} from DynamoDB`), { name });

/** What `run` throws (the very object, not one with the same message). */
const thrown = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
};

const cancelled = (codes: (string | undefined)[] | undefined) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
    $metadata: {},
    ...(codes && { CancellationReasons: codes.map((Code) => (Code === undefined ? {} : { Code })) }),
  });

/** Logs show an error's name, message and cause: each store error names itself and keeps what caused it. */
describe('store errors', () => {
  it.each([
    ['IdSpaceExhaustedError', IdSpaceExhaustedError],
    ['ConcurrentUpdateError', ConcurrentUpdateError],
    ['StoreInvariantError', StoreInvariantError],
  ] as const)('%s names itself, keeps its message and its cause', (name, ErrorClass) => {
    const cause = new Error('underneath');
    const error = new ErrorClass('what went wrong', { cause });
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.message, error.cause]).toStrictEqual([name, 'what went wrong', cause]);
    expect(String(error)).toBe(`${name}: what went wrong`);
  });

  it('SchemaVersionError names the table, both versions and the command that migrates it', () => {
    const error = new SchemaVersionError('Books', 0, 1, 'npm run data:migrate');
    expect(String(error)).toBe(
      'SchemaVersionError: Table Books has schemaVersion 0; this version of the service needs 1: ' +
        'run npm run data:migrate against it (with --aws for a deployed table)',
    );
  });
});

describe('classifying a failed single write', () => {
  it('a lost condition is ConditionalCheckFailedException, and nothing else', () => {
    expect(isConditionalCheckFailure(serviceError('ConditionalCheckFailedException'))).toBe(true);
    expect(isConditionalCheckFailure(serviceError('TransactionConflictException'))).toBe(false);
    expect(isConditionalCheckFailure(serviceError('ProvisionedThroughputExceededException'))).toBe(false);
    expect(isConditionalCheckFailure({ name: 'ConditionalCheckFailedException' })).toBe(false);
  });

  it('meeting another transaction is TransactionConflictException, and nothing else', () => {
    expect(isTransactionConflict(serviceError('TransactionConflictException'))).toBe(true);
    expect(isTransactionConflict(serviceError('ConditionalCheckFailedException'))).toBe(false);
    expect(isTransactionConflict(serviceError('ThrottlingException'))).toBe(false);
    expect(isTransactionConflict({ name: 'TransactionConflictException' })).toBe(false);
  });
});

describe('why a transaction was cancelled', () => {
  it('lists, by position, which items failed their condition', () => {
    expect(cancellation(cancelled(['None', 'ConditionalCheckFailed']), 2)).toStrictEqual([false, true]);
    expect(cancellation(cancelled(['ConditionalCheckFailed', 'None', 'ConditionalCheckFailed']), 3)).toStrictEqual([
      true,
      false,
      true,
    ]);
  });

  it('counts the items it was asked about, even when DynamoDB gives fewer reasons', () => {
    expect(cancellation(cancelled(['ConditionalCheckFailed']), 3)).toStrictEqual([true, false, false]);
  });

  it('a failed condition decides over a conflict on another item', () => {
    expect(cancellation(cancelled(['TransactionConflict', 'ConditionalCheckFailed']), 2)).toStrictEqual([false, true]);
  });

  it("is 'conflict' when the transaction only met another one", () => {
    expect(cancellation(cancelled(['None', 'TransactionConflict']), 2)).toBe('conflict');
    expect(cancellation(cancelled(['TransactionConflict', undefined]), 2)).toBe('conflict');
  });

  it('rethrows a cancellation for any other reason (throttling, validation), or without reasons', () => {
    for (const codes of [['ThrottlingError', 'None'], ['ValidationError'], [undefined, undefined], [], undefined]) {
      const error = cancelled(codes);
      expect(thrown(() => cancellation(error, 2))).toBe(error);
    }
  });

  it('rethrows any error that is not a cancelled transaction, as it is', () => {
    const throttled = serviceError('ProvisionedThroughputExceededException');
    expect(thrown(() => cancellation(throttled, 2))).toBe(throttled);
    const conflict = serviceError('TransactionConflictException');
    expect(thrown(() => cancellation(conflict, 2))).toBe(conflict);
  });
});
