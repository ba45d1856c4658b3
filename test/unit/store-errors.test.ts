import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ConcurrentUpdateError,
  cancellation,
  IdSpaceExhaustedError,
  isConditionalCheckFailure,
  isTransactionConflict,
  StoreInvariantError,
  TableLayoutError,
} from '../../shared/store/errors';
import { MAX_WRITE_ATTEMPTS, RETRY, retryOnConflict } from '../../shared/store/retry';

const named = (name: string) => Object.assign(new Error('x'), { name });
const cancelled = (...codes: (string | undefined)[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => (Code === undefined ? {} : { Code })),
  });

describe("the store's errors", () => {
  it.each([
    [IdSpaceExhaustedError, 'IdSpaceExhaustedError'],
    [ConcurrentUpdateError, 'ConcurrentUpdateError'],
    [StoreInvariantError, 'StoreInvariantError'],
    [TableLayoutError, 'TableLayoutError'],
  ])('%o is an Error named %s that keeps its cause', (ErrorClass, name) => {
    const cause = new Error('underlying');
    const error = new ErrorClass('message', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.message).toBe('message');
    expect(error.cause).toBe(cause);
  });

  it('tells a lost condition and a transaction conflict by the SDK error name only', () => {
    expect(isConditionalCheckFailure(named('ConditionalCheckFailedException'))).toBe(true);
    expect(isConditionalCheckFailure(named('TransactionConflictException'))).toBe(false);
    expect(isConditionalCheckFailure({ name: 'ConditionalCheckFailedException' })).toBe(false);
    expect(isTransactionConflict(named('TransactionConflictException'))).toBe(true);
    expect(isTransactionConflict(named('ConditionalCheckFailedException'))).toBe(false);
    expect(isTransactionConflict({ name: 'TransactionConflictException' })).toBe(false);
  });
});

describe('why a transaction was cancelled', () => {
  it('names the items whose condition failed, by position', () => {
    expect(cancellation(cancelled('None', 'ConditionalCheckFailed', 'None'), 3)).toEqual([false, true, false]);
    expect(cancellation(cancelled('ConditionalCheckFailed', 'TransactionConflict'), 2)).toEqual([true, false]);
  });

  it('reads missing reasons as passed conditions, for as many items as the transaction had', () => {
    expect(cancellation(cancelled('ConditionalCheckFailed'), 3)).toEqual([true, false, false]);
  });

  it("says 'conflict' when the only trouble was another transaction", () => {
    expect(cancellation(cancelled('None', 'TransactionConflict'), 2)).toBe('conflict');
  });

  it('rethrows anything else: other reasons, no reasons, other errors', () => {
    const throttled = cancelled('None', 'ThrottlingError');
    expect(() => cancellation(throttled, 2)).toThrow(throttled);
    const bare = new TransactionCanceledException({ message: 'no reasons', $metadata: {} });
    expect(() => cancellation(bare, 1)).toThrow(bare);
    const other = named('ValidationException');
    expect(() => cancellation(other, 1)).toThrow(other);
  });
});

describe('retrying an optimistic write', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('returns the first outcome that is not RETRY, without waiting when there was no conflict', async () => {
    const attempt = vi.fn().mockResolvedValueOnce('done');
    const timer = vi.spyOn(globalThis, 'setTimeout');
    await expect(retryOnConflict('a write', attempt)).resolves.toBe('done');
    expect(attempt).toHaveBeenCalledTimes(1);
    expect(timer).not.toHaveBeenCalled();
  });

  it('runs again after each conflict, with jittered exponential backoff capped at 2^5', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const delays: number[] = [];
    const realSetTimeout = setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms: number) => {
      delays.push(ms);
      return realSetTimeout(callback, 0);
    }) as typeof setTimeout);
    let calls = 0;
    const outcome = retryOnConflict('a write', async () => (++calls < 8 ? RETRY : calls));
    await vi.runAllTimersAsync();
    await expect(outcome).resolves.toBe(8);
    // 0.5 × 10 × 2^min(attempt, 5) for attempts 1 to 7
    expect(delays).toEqual([10, 20, 40, 80, 160, 160, 160]);
  });

  it(`gives up after ${MAX_WRITE_ATTEMPTS} attempts with a ConcurrentUpdateError naming the write`, async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const attempt = vi.fn().mockResolvedValue(RETRY);
    const failure = retryOnConflict('claiming ISBN 1', attempt);
    await expect(failure).rejects.toThrow(ConcurrentUpdateError);
    await expect(failure).rejects.toThrow('claiming ISBN 1 kept conflicting during 10 attempts');
    expect(attempt).toHaveBeenCalledTimes(10);
    expect(MAX_WRITE_ATTEMPTS).toBe(10);
  });
});
