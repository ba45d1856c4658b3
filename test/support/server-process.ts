import { type ChildProcess, spawn } from 'node:child_process';
import type { MeteredCall } from '../../bench/dynamodb-meter';
import { freePort } from '../../local/ports';
import type { TableNames } from '../../local/tables';
import { BASIC_DEMO } from './local-api';

/**
 * `npm start`'s local/main.ts in a process of its own: a new process is a new function container
 * (its own id block, its own knowledge of the table), as a Lambda scale-out or a redeploy makes.
 */
export interface ServerProcess {
  baseUrl: string;
  process: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

export const startServerProcess = async (
  endpoint: string,
  names: TableNames,
  nodeFlags: string[] = [],
  env: Record<string, string> = {},
): Promise<ServerProcess> => {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'local/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      DYNAMODB_ENDPOINT: endpoint,
      BOOKS_TABLE_NAME: names.books,
      AUTH_TABLE_NAME: names.auth,
      LOCAL_USERS: 'demo:demo',
      NODE_NO_WARNINGS: '1',
      ...env,
    },
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const deadline = Date.now() + 60_000;
  while (!output.includes('listening on')) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGTERM');
      throw new Error(`the server did not start:\n${output}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    process: child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
};

/** Creates a book through a server's API and returns its id. */
export const createThrough = async (baseUrl: string, isbn: string): Promise<number> => {
  const response = await fetch(`${baseUrl}/api/books`, {
    method: 'POST',
    headers: { authorization: BASIC_DEMO, 'content-type': 'application/json' },
    body: JSON.stringify({ title: `Book ${isbn}`, author: 'Paged', isbn, publicationYear: 2001 }),
  });
  if (response.status !== 201) throw new Error(`create ${isbn}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: number }).id;
};

/** The calls on the books table (the authorizer's, on the auth table, left out). */
export const booksTableCalls = (calls: MeteredCall[], names: TableNames) =>
  calls.filter((call) => JSON.stringify(call.request).includes(`"${names.books}"`));
