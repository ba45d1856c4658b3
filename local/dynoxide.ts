import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dynoxideBinary } from './dynoxide-binary';
import { acceptsConnections, freePort } from './ports';
import { indexStreamRecords } from './stream-record-index';

/*
 * The local database under `npm start`, the tests, the soak rounds, the tools and the bench:
 * Dynoxide, an open-source DynamoDB emulator (docs/decisions/dynoxide-local-database.md).
 * It stays a separate process speaking DynamoDB's HTTP API, so DYNAMODB_ENDPOINT can swap in any
 * other DynamoDB.
 */

export interface LocalDatabase {
  endpoint: string;
  /** Its SQLite file. */
  dataFile: string;
  /** Its process id, for an operator who has to stop it by hand. */
  pid: number | undefined;
  /** Settles when the process ends, whoever ended it. */
  exited: Promise<DatabaseExit>;
  stop(): Promise<void>;
}

export interface DatabaseExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines it printed, for the message that says why. */
  output: string;
}

export interface LocalDatabaseOptions {
  /** Where its data file lives; omitted means a scratch folder, removed when the database stops (tests). */
  dataDir?: string;
  /** Omitted means any free port. */
  port?: number;
  /**
   * The address it listens on; omitted means 127.0.0.1. `sam local` containers need one the Docker
   * bridge reaches (docs/sam.md).
   */
  host?: string;
  startTimeoutMs?: number;
  /** Told when the binary has to be built first (minutes, once). */
  log?: (line: string) => void;
}

/** The file Dynoxide keeps a data folder's tables in (SQLite). */
export const DATABASE_FILE = 'dynoxide.db';

/** The port asked for answers already: whatever listens there is not a database this start owns. */
export class DatabasePortInUseError extends Error {
  override readonly name = 'DatabasePortInUseError';
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`port ${port} on ${host} is already in use by another program`);
  }
}

class DatabaseStartError extends Error {
  override readonly name = 'DatabaseStartError';
}

/** Printed by Dynoxide once it has bound its port (src/server/mod.rs). */
const LISTENING = 'Dynoxide listening on';
/** Printed by Dynoxide when its own check finds the port taken. */
const PORT_TAKEN = /already in use/;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Starts Dynoxide and waits until it, and not some other program on the same port, answers:
 * its "listening" line printed, the port accepting connections, the process still running.
 */
export const startLocalDatabase = async (options: LocalDatabaseOptions = {}): Promise<LocalDatabase> => {
  const host = options.host ?? '127.0.0.1';
  // Clients on this machine reach a wildcard address through the loopback interface.
  const reachableAt = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const binary = await dynoxideBinary({ log: options.log });
  // A file, not Dynoxide's in-memory mode, even for a scratch database: only a file can be given the index it lacks.
  const scratch = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(scratchRoot(), 'dynoxide-'));
  mkdirSync(dataDir, { recursive: true });
  const dataFile = join(resolve(dataDir), DATABASE_FILE);
  const database = await launchOnFreePort(binary, { ...options, host, reachableAt, dataFile }).catch((error) => {
    if (scratch) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  if (scratch) removedWhenStopped(database, dataDir);
  const unindexed = await indexStreamRecords(dataFile);
  if (unindexed) {
    options.log?.(
      `Dynoxide's stream records stay unindexed (${unindexed}): streamed writes slow down as they pile up.`,
    );
  }
  return database;
};

// A port chosen here can be taken by another program before Dynoxide binds it; then another is tried.
const launchOnFreePort = async (
  binary: string,
  options: LocalDatabaseOptions & Pick<Launch, 'host' | 'reachableAt' | 'dataFile'>,
): Promise<LocalDatabase> => {
  const { host, reachableAt, dataFile } = options;
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    if (await acceptsConnections(reachableAt, port)) throw new DatabasePortInUseError(reachableAt, port);
    try {
      return await launch(binary, { host, reachableAt, port, dataFile, timeoutMs: options.startTimeoutMs ?? 30_000 });
    } catch (error) {
      if (!(error instanceof DatabasePortInUseError) || options.port !== undefined || attempt === 3) throw error;
    }
  }
};

/**
 * A scratch database needs no durability, and each of SQLite's commits syncs its log: in a tmpfs that
 * costs nothing (13 µs a write here, 244 µs in /tmp). Containers often give /dev/shm 64 MB, too little.
 */
const scratchRoot = () => {
  try {
    const { bavail, bsize } = statfsSync('/dev/shm');
    if (bavail * bsize >= 2 ** 30) return '/dev/shm';
  } catch {
    // No /dev/shm (macOS, Windows): the system's temporary folder.
  }
  return tmpdir();
};

const removedWhenStopped = (database: LocalDatabase, folder: string) => {
  const remove = () => rmSync(folder, { recursive: true, force: true });
  process.once('exit', remove);
  void database.exited.then(() => {
    process.off('exit', remove);
    remove();
  });
};

interface Launch {
  host: string;
  reachableAt: string;
  port: number;
  dataFile: string;
  timeoutMs: number;
}

const launch = async (binary: string, { host, reachableAt, port, dataFile, timeoutMs }: Launch) => {
  const child = spawn(binary, ['serve', '--host', host, '--port', String(port), '--db-path', dataFile], {
    // Its own process group: a terminal's Ctrl-C reaches npm start, which stops it in order, and
    // not Dynoxide first (which would look like a database that died under a running server).
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<DatabaseExit>((done) => {
    child.once('exit', (code, signal) => done({ code, signal, output: output.trim() }));
    child.once('error', (error) => done({ code: null, signal: null, output: error.message }));
  });
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  // On any exit of this process that runs its handlers; the watchdog covers the ones that do not.
  const stopOnExit = () => child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  const watchdog = startWatchdog(child);
  void exited.then(() => {
    process.off('exit', stopOnExit);
    watchdog?.kill('SIGKILL');
  });

  const deadline = Date.now() + timeoutMs;
  while (!(output.includes(LISTENING) && (await acceptsConnections(reachableAt, port)))) {
    const early = await Promise.race([exited, sleep(50).then(() => undefined)]);
    if (early) {
      if (PORT_TAKEN.test(early.output)) throw new DatabasePortInUseError(reachableAt, port);
      throw new DatabaseStartError(
        `Dynoxide (${binary}) exited with ${early.signal ?? `code ${early.code}`}: ${early.output}`,
      );
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new DatabaseStartError(`Dynoxide did not start within ${timeoutMs} ms: ${output}`);
    }
  }
  // Bound and answering, and still running: the answer came from this process, not another.
  if (ended()) throw new DatabaseStartError(`Dynoxide exited right after it started: ${output}`);

  return {
    endpoint: `http://${reachableAt.includes(':') ? `[${reachableAt}]` : reachableAt}:${port}`,
    dataFile,
    pid: child.pid,
    exited,
    stop: async () => {
      if (ended()) return;
      child.kill('SIGTERM');
      const stopped = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
      if (!stopped) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  } satisfies LocalDatabase;
};

/*
 * Stops the database when this process ends in a way that runs no handler of its own (SIGKILL, a
 * crash of the runtime). Linux's parent-death signal is out of Node's reach and Dynoxide does not
 * read its standard input, so a shell holds the other end of a pipe from this process instead: the
 * pipe reaches end of file when this process ends, however it ends, and the shell then stops
 * Dynoxide. It ignores the terminal's signals, which this process handles in order.
 */
const WATCHDOG = `trap '' INT HUP TERM; while read -r _; do :; done; kill -TERM "$1" 2>/dev/null`;

const startWatchdog = (child: ChildProcess): ChildProcess | undefined => {
  if (process.platform === 'win32' || child.pid === undefined) return undefined;
  const watchdog = spawn('/bin/sh', ['-c', WATCHDOG, 'dynoxide-watchdog', String(child.pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.on('error', () => undefined); // no shell: the exit handlers alone remain
  // Neither keeps this process alive: a forgotten database goes when this process does.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return watchdog;
};
