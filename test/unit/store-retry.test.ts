import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConcurrentUpdateError } from '../../shared/store/errors';
import { LostRace, MAX_WRITE_ATTEMPTS, RETRY_BUDGET_MS, retryOnConflict } from '../../shared/store/retry';

/**
 * The optimistic-write loop: how often it tries, how long it waits in between, and how it gives up.
 * Its worst case bounds a write's time inside the function's timeout, so the limits are the rule.
 */
describe('retryOnConflict', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  /** An attempt that loses `losses` races, then returns `result`; `calls` counts its runs. */
  const losing = <T>(losses: number, result: T) => {
    const state = { calls: 0 };
    const attempt = async () => (++state.calls > losses ? result : new LostRace(new Error('lost')));
    return { state, attempt };
  };

  it('returns the first outcome that is not a LostRace, without waiting', async () => {
    const { state, attempt } = losing(0, 'done');
    await expect(retryOnConflict('Book 1', attempt)).resolves.toBe('done');
    expect(state.calls).toBe(1);
  });

  it('runs the attempt again after each lost race, and returns what the winning run returns', async () => {
    const { state, attempt } = losing(3, { id: 7 });
    const outcome = retryOnConflict('Book 7', attempt);
    await vi.runAllTimersAsync();
    await expect(outcome).resolves.toStrictEqual({ id: 7 });
    expect(state.calls).toBe(4);
  });

  it('may still win on the last of its attempts', async () => {
    const { state, attempt } = losing(MAX_WRITE_ATTEMPTS - 1, 'last');
    const outcome = retryOnConflict('Book 2', attempt);
    await vi.runAllTimersAsync();
    await expect(outcome).resolves.toBe('last');
    expect(state.calls).toBe(MAX_WRITE_ATTEMPTS);
  });

  it('gives up after MAX_WRITE_ATTEMPTS (10) runs with a ConcurrentUpdateError naming what kept conflicting', async () => {
    expect(MAX_WRITE_ATTEMPTS).toBe(10);
    const { state, attempt } = losing(Number.POSITIVE_INFINITY, 'never');
    const outcome = retryOnConflict('Book 9', attempt);
    const failure = expect(outcome).rejects.toThrow(ConcurrentUpdateError);
    await vi.runAllTimersAsync();
    await failure;
    await expect(outcome).rejects.toThrow('Book 9 kept conflicting during 10 attempts');
    expect(state.calls).toBe(MAX_WRITE_ATTEMPTS);
  });

  it('keeps the error behind the last lost race as the cause of the ConcurrentUpdateError', async () => {
    const conflicts = Array.from({ length: MAX_WRITE_ATTEMPTS }, (_, n) => new Error(`conflict ${n + 1}`));
    let calls = 0;
    const outcome = retryOnConflict('Book 8', async () => new LostRace(conflicts[calls++])).catch(
      (error: unknown) => error,
    );
    await vi.runAllTimersAsync();
    const error = await outcome;
    expect(error).toBeInstanceOf(ConcurrentUpdateError);
    expect((error as Error).cause).toBe(conflicts.at(-1));
  });

  it('waits a random share of 10 ms × 2^attempt between runs, doubling up to 320 ms from the fifth on', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const { state, attempt } = losing(Number.POSITIVE_INFINITY, 'never');
    const outcome = retryOnConflict('Book 3', attempt).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(0);
    expect(state.calls).toBe(1);
    // Half of the ceiling after runs 1 to 9: 10, 20, 40, 80, then 160 each time.
    for (const [run, wait] of [10, 20, 40, 80, 160, 160, 160, 160, 160].entries()) {
      await vi.advanceTimersByTimeAsync(wait - 1);
      expect(state.calls, `still waiting after run ${run + 1}`).toBe(run + 1);
      await vi.advanceTimersByTimeAsync(1);
      expect(state.calls, `run ${run + 2} after ${wait} ms`).toBe(run + 2);
    }
    await vi.runAllTimersAsync();
    expect(await outcome).toBeInstanceOf(ConcurrentUpdateError);
    expect(state.calls).toBe(MAX_WRITE_ATTEMPTS);
  });

  it('draws a fresh random wait each time (jitter), between 0 and the ceiling', async () => {
    const random = vi.spyOn(Math, 'random').mockReturnValueOnce(0).mockReturnValueOnce(0.75);
    const { state, attempt } = losing(2, 'ok');
    const outcome = retryOnConflict('Book 4', attempt);
    await vi.advanceTimersByTimeAsync(0);
    expect(state.calls).toBe(2); // a zero draw waits no time at all
    await vi.advanceTimersByTimeAsync(29);
    expect(state.calls).toBe(2); // 0.75 of the 40 ms ceiling after the second run
    await vi.advanceTimersByTimeAsync(1);
    expect(state.calls).toBe(3);
    await expect(outcome).resolves.toBe('ok');
    expect(random).toHaveBeenCalledTimes(2);
  });
});

describe('retryOnConflict under slow attempts', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it(`starts no retry once RETRY_BUDGET_MS (4 s) have passed, so a write ends well inside the function's timeout`, async () => {
    expect(RETRY_BUDGET_MS).toBe(4_000);
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    let calls = 0;
    // Each run takes a second (a slow database): runs end at 1000, 2010, 3030 and 4070 ms.
    const slow = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return new LostRace(new Error('lost'));
    };
    const outcome = retryOnConflict('Book 5', slow).catch((error: unknown) => error);
    await vi.runAllTimersAsync();
    const error = await outcome;
    expect(error).toBeInstanceOf(ConcurrentUpdateError);
    expect((error as Error).message).toBe('Book 5 kept conflicting for 4000 ms (4 attempts)');
    expect(calls).toBe(4);
  });

  it('still retries a run that ends just inside the budget', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    let calls = 0;
    const slow = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 3_999));
      return calls === 2 ? 'won' : new LostRace(new Error('lost'));
    };
    const outcome = retryOnConflict('Book 6', slow);
    await vi.runAllTimersAsync();
    await expect(outcome).resolves.toBe('won');
    expect(calls).toBe(2);
  });
});
