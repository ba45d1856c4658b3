import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { userRecord } from '../ops/user-records';
import { toEnvironment } from '../shared/config';
import { bookEventNames } from '../shared/events/names';
import { DynamoUserStore } from '../shared/store/auth/dynamodb-user-store';
import { createDocumentClient, createDynamoClient } from '../shared/store/dynamodb-client';
import { type DatabaseExit, DatabasePortInUseError, type LocalDatabase, startLocalDatabase } from './dynoxide';
import { DynoxideMissingError } from './dynoxide-binary';
import { apiUrlFile } from './endpoint-file';
import { type EventPipeline, startEventPipeline } from './events/pipeline';
import { type LocalOptions, LocalStartError } from './options';
import { createLocalServer } from './server';
import { checkForStaleDatabase, forgetDatabase, recordDatabase, StaleDatabaseError } from './stale-database';
import { guardStorage, type StorageGuard } from './storage-guard';
import { ensureTables } from './tables';

/*
 * `npm start` in named steps: parse the options (local/options.ts), set the server up, start its
 * storage, run until a signal, and report what is running. local/main.ts calls them in that order;
 * each can be called on its own.
 */

export interface LocalService {
  server: Server;
  /** The base URL it listens on, with the port the system gave when PORT=0. */
  url: string;
  /** The database this start launched, once it runs; undefined when it uses one given by endpoint. */
  database: LocalDatabase | undefined;
  /** Watches that database's folder and disk, once it runs (local/storage-guard.ts). */
  storageGuard: StorageGuard | undefined;
  /** Reads the books table's stream and delivers change events, when LOCAL_EVENTS_URL is set. */
  events: EventPipeline | undefined;
  /** Called if the database this start launched ends while the service runs (never when `stop` ends it). */
  onDatabaseLost: (exit: DatabaseExit) => void;
  /** Lets the requests that arrived meanwhile through, once the database is ready. */
  ready(): void;
  /** Closes the server and stops the database it started. */
  stop(): Promise<void>;
  /** True once `stop` was called. */
  stopping: boolean;
}

const listen = (server: Server, port: number) =>
  new Promise<void>((done, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      done();
    });
  });

/**
 * Step 2, the local composition root: it sets the environment the handlers' own roots read (table
 * names, realm, nonce key) and claims the port with the local server, which loads the same handler
 * modules the stack deploys. Requests wait until `startStorage` has the database ready.
 */
export const setUpLocalService = async (
  options: LocalOptions,
  log: (line: string) => void = console.log,
): Promise<LocalService> => {
  Object.assign(process.env, options.functionEnvironment);
  let ready!: () => void;
  let service!: LocalService;
  const server = createLocalServer({
    publicReads: options.publicReads,
    realm: options.realm,
    ...(options.stage && { stage: options.stage }),
    ready: new Promise<void>((done) => {
      ready = done;
    }),
    log,
    storageGuard: () => service.storageGuard,
  });
  // Claim the port first: a port in use is reported at once, before the database starts.
  await listen(server, options.port).catch((error: NodeJS.ErrnoException) => {
    throw new LocalStartError(
      error.code === 'EADDRINUSE' ? `port ${options.port} is already in use; set PORT to another one` : error.message,
      { cause: error },
    );
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${options.stage ? `/${options.stage}` : ''}`;
  service = {
    server,
    url,
    database: undefined,
    storageGuard: undefined,
    events: undefined,
    onDatabaseLost: () => undefined,
    ready,
    stopping: false,
    stop: async () => {
      service.stopping = true;
      service.storageGuard?.stop();
      server.close();
      server.closeAllConnections();
      forgetApiUrl(options.dataDir, url);
      await service.events?.stop();
      if (service.database) forgetDatabase(options.dataDir);
      await service.database?.stop();
    },
  };
  return service;
};

/** Why the database could not start, as the user can act on it. */
const startFailure = (options: LocalOptions, error: Error): string => {
  if (error instanceof DatabasePortInUseError && options.dynamodbPort !== undefined) {
    return (
      `DYNAMODB_PORT ${error.port} is already in use by another program, and npm start only uses a database it started itself. ` +
      `Set DYNAMODB_PORT to a free port (or leave it unset for any free one), or set DYNAMODB_ENDPOINT=http://${error.host}:${error.port} ` +
      'to use the database there on purpose.'
    );
  }
  if (error instanceof DynoxideMissingError) return error.message;
  return `the local database (Dynoxide) failed to start: ${error.message}`;
};

const startDatabase = async (options: LocalOptions, log: (line: string) => void) => {
  const removed = await checkForStaleDatabase(options.dataDir).catch((error: Error) => {
    throw new LocalStartError(
      error instanceof StaleDatabaseError ? error.message : `cannot read ${options.dataDir}: ${error.message}`,
      { cause: error },
    );
  });
  if (removed) log(`Removed the address of a local database that no longer runs (${options.dataDir})`);
  log(`Starting the local database, Dynoxide (data in ${options.dataDir}) ...`);
  const database = await startLocalDatabase({
    dataDir: options.dataDir,
    ...(options.dynamodbPort && { port: options.dynamodbPort }),
    ...(options.dynamodbHost && { host: options.dynamodbHost }),
    log,
  }).catch((error: Error) => {
    throw new LocalStartError(startFailure(options, error), { cause: error });
  });
  log(`Dynoxide at ${database.endpoint} (process ${database.pid})`);
  mkdirSync(options.dataDir, { recursive: true });
  recordDatabase(options.dataDir, database);
  return database;
};

const prepareTables = async (options: LocalOptions, endpoint: string, log: (line: string) => void) => {
  try {
    await ensureTables(createDynamoClient(endpoint), options.tables, log);
    const userStore = new DynamoUserStore(createDocumentClient(endpoint), options.tables.auth);
    for (const { username, password, role } of options.users) {
      await userStore.put({ ...userRecord(username, password, options.realm), role });
    }
  } catch (error) {
    throw new LocalStartError(`could not prepare the tables at ${endpoint}: ${(error as Error).message}`, {
      cause: error,
    });
  }
};

/** Leaves the API's address in the data folder for the tools (seed, verify:deployment) to find. */
const recordApiUrl = (dataDir: string, url: string) => {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(apiUrlFile(dataDir), `${url}\n`);
};

/** Removes the address, unless another start on this folder has written its own since. */
const forgetApiUrl = (dataDir: string, url: string) => {
  try {
    if (readFileSync(apiUrlFile(dataDir), 'utf8').trim() === url) rmSync(apiUrlFile(dataDir), { force: true });
  } catch {
    // No file: nothing to forget.
  }
};

/**
 * Step 3: the database (Dynoxide started, or the one given), its tables and the LOCAL_USERS;
 * then the waiting requests go through. On failure the service is stopped before the error is thrown.
 */
export const startStorage = async (
  service: LocalService,
  options: LocalOptions,
  log: (line: string) => void = console.log,
): Promise<void> => {
  try {
    if (options.dynamodbEndpoint) log(`Using DynamoDB at ${options.dynamodbEndpoint}`);
    else {
      const database = await startDatabase(options, log);
      service.database = database;
      void database.exited.then((exit) => {
        if (!service.stopping) service.onDatabaseLost(exit);
      });
    }
    const endpoint = options.dynamodbEndpoint ?? (service.database as LocalDatabase).endpoint;
    Object.assign(process.env, toEnvironment({ dynamodbEndpoint: endpoint }));
    await prepareTables(options, endpoint, log);
    // Before the first request: a first start reads from the stream's end, so its own changes come after.
    if (options.events) {
      const delivery = options.events;
      service.events = await startEventPipeline({
        endpoint,
        tableName: options.tables.books,
        dataDir: options.dataDir,
        delivery,
        names: bookEventNames(),
        log,
      }).catch((error: Error) => {
        throw new LocalStartError(`could not read the books table's stream for LOCAL_EVENTS_URL: ${error.message}`, {
          cause: error,
        });
      });
    }
    if (service.database) service.storageGuard = guardStorage(options.dataDir, { log: console.error });
  } catch (error) {
    await service.stop();
    throw error;
  }
  recordApiUrl(options.dataDir, service.url);
  service.ready();
};

/** Step 4: serve until SIGINT or SIGTERM, then stop once and exit. */
export const runUntilSignalled = (service: LocalService, log: (line: string) => void = console.log) => {
  let stopping = false;
  const stop = async (signal: string) => {
    // A terminal's Ctrl-C reaches npm, tsx and this process alike: stop once, ignore the echoes.
    if (stopping) return;
    stopping = true;
    log(`\n${signal} received, stopping`);
    await service.stop();
    log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // Without its database every request would get a 500: say why, and stop.
  service.onDatabaseLost = (exit) => {
    const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
    console.error(
      `error: the local database (Dynoxide, process ${service.database?.pid}) stopped while the server ran (${how}); ` +
        'the server stops too. Start it again with npm start.' +
        (exit.output ? `\nIts last output: ${exit.output.split('\n').slice(-3).join('\n')}` : ''),
    );
    void service.stop().finally(() => process.exit(1));
  };
  // The server answers every request's failure itself; whatever still escapes ends the process, with
  // the database and the files that name it, rather than leaving them behind.
  const crash = (error: unknown) => {
    console.error('error: the local server failed and stops', error);
    void service.stop().finally(() => process.exit(1));
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
};

/** Step 5: what is running, where, and for whom. */
export const readyReport = (options: LocalOptions, url = `http://127.0.0.1:${options.port}`): string[] => {
  // Names only: a password set through LOCAL_USERS never reaches the console (the documented demo:demo may).
  const shown = options.users.map(
    (u) => `${u.username === 'demo' && u.password === 'demo' ? 'demo:demo' : u.username} (${u.role})`,
  );
  return [
    `Book Library API listening on ${url}/api/books`,
    `API reference: ${url}/api/docs`,
    `Realm "${options.realm}", users: ${shown.join(', ') || 'none'}`,
    options.publicReads
      ? 'GET routes are public; writes need credentials.'
      : 'Every /api/books route needs credentials (Basic or Digest).',
  ];
};
