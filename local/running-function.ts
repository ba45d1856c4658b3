import { AsyncLocalStorage } from 'node:async_hooks';

const invokedFunction = new AsyncLocalStorage<string>();

/**
 * Runs `work` as the named function. `npm start` runs every function in one process (local/invocation.ts);
 * this tells each function's calls apart there, as separate containers do on Lambda.
 */
export const runAsFunction = <T>(name: string, work: () => T): T => invokedFunction.run(name, work);

/** The function `runAsFunction` runs now: undefined on Lambda, where a process is one function's container. */
export const runningFunction = (): string | undefined => invokedFunction.getStore();
