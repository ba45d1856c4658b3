import { ConcurrentUpdateError } from './errors';

/** Optimistic writes retry when another writer changed the item in between. */
export const MAX_WRITE_ATTEMPTS = 10;

/**
 * No retry starts once this long has passed since the first attempt. Under heavy contention (or a
 * slow database) ten attempts could outlast the function's 10 s timeout and end in the generic 500;
 * giving up here leaves the last attempt the rest of that time, and the client a 503 to repeat.
 */
export const RETRY_BUDGET_MS = 4_000;

/**
 * What an attempt returns when it lost a race and should run again on fresh state, with the error
 * that reported it: if the retries run out, ConcurrentUpdateError keeps the last such error as its
 * `cause`, so the log line of the 503 shows what DynamoDB answered.
 */
export class LostRace {
  constructor(readonly cause: unknown) {}
}

export type Retry = LostRace;

/** Full jitter (a random share of the exponential step): writers that collided spread out instead of colliding again. */
const backoffMs = (attempt: number) => Math.random() * 10 * 2 ** Math.min(attempt, 5);

/**
 * Runs `attempt` until it returns something other than a LostRace, with jittered exponential backoff in
 * between, at most MAX_WRITE_ATTEMPTS times and no retry past RETRY_BUDGET_MS; then
 * ConcurrentUpdateError names what kept conflicting, with the last lost race's error as its cause.
 */
export const retryOnConflict = async <T>(what: string, attempt: () => Promise<T | Retry>): Promise<T> => {
  const giveUpAt = Date.now() + RETRY_BUDGET_MS;
  let lost: LostRace | undefined;
  const givingUp = (message: string) => new ConcurrentUpdateError(message, lost && { cause: lost.cause });
  for (let n = 1; n <= MAX_WRITE_ATTEMPTS; n++) {
    const outcome = await attempt();
    if (!(outcome instanceof LostRace)) return outcome;
    lost = outcome;
    if (n === MAX_WRITE_ATTEMPTS) break;
    const wait = backoffMs(n);
    if (Date.now() + wait >= giveUpAt) {
      throw givingUp(`${what} kept conflicting for ${RETRY_BUDGET_MS} ms (${n} attempts)`);
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  throw givingUp(`${what} kept conflicting during ${MAX_WRITE_ATTEMPTS} attempts`);
};
