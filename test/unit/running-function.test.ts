import { describe, expect, it } from 'vitest';
import { runAsFunction, runningFunction } from '../../local/running-function';

/** How npm start tells its functions' DynamoDB calls apart in one process (local/invocation.ts). */
describe('the running function', () => {
  it('is the name runAsFunction runs work under, through awaits, and nothing outside it', async () => {
    expect(runningFunction()).toBeUndefined();
    const seen = await runAsFunction('books', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return runningFunction();
    });
    expect(seen).toBe('books');
    expect(runningFunction()).toBeUndefined();
  });
});
