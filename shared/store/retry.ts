import { ConcurrentUpdateError } from './errors';

/** Optimistic writes retry when another writer changed the item in between. */
export const MAX_WRITE_ATTEMPTS = 10;

/** What an attempt returns when it lost a race and should run again on fresh state. */
export const RETRY = Symbol('retry');

const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** Math.min(attempt, 5)));

/**
 * Runs `attempt` until it returns something other than RETRY, with jittered exponential backoff in
 * between, at most MAX_WRITE_ATTEMPTS times; then ConcurrentUpdateError names what kept conflicting.
 */
export const retryOnConflict = async <T>(what: string, attempt: () => Promise<T | typeof RETRY>): Promise<T> => {
  for (let n = 1; n <= MAX_WRITE_ATTEMPTS; n++) {
    const outcome = await attempt();
    if (outcome !== RETRY) return outcome;
    await backoff(n);
  }
  throw new ConcurrentUpdateError(`${what} kept conflicting during ${MAX_WRITE_ATTEMPTS} attempts`);
};
