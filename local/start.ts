import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { isIP } from 'node:net';
import { parseUserList, userRecord } from '../admin/user-records';
import { DEFAULT_LOCKOUT_POLICY, type LockoutPolicy } from '../shared/auth/lockout';
import { DEFAULTS, ENV, type Environment, readLockoutPolicy, readSetting, toEnvironment } from '../shared/config';
import { createDocumentClient, createDynamoClient } from '../shared/store/dynamodb-client';
import { DynamoUserStore } from '../shared/store/dynamodb-user-store';
import { type DynamoDbLocal, JavaMissingError, startDynamoDbLocal } from './dynamodb-local';
import { createLocalServer } from './server';
import { checkForStaleDatabase, forgetDatabase, recordDatabase, StaleDatabaseError } from './stale-database';
import { DEFAULT_TABLE_NAMES, ensureTables, type TableNames } from './tables';

/*
 * `npm start` in named steps: parse the options, set the server up, start its storage, run until a
 * signal, and report what is running. local/main.ts calls them in that order; each can be called on its own.
 */

export const HELP = `Usage: npm start

Runs the Book Library API on http://127.0.0.1:$PORT with DynamoDB Local, using the same
handlers that run on AWS Lambda.

Environment:
  PORT               port to listen on (default 3000)
  DATA_DIR           where DynamoDB Local keeps its files (default .data)
  ${ENV.dynamodbEndpoint}  use this DynamoDB instead of starting DynamoDB Local (tables created if missing)
  DYNAMODB_PORT      port for the DynamoDB Local it starts (default: any free one; sam local wants 8000)
  DYNAMODB_HOST      address that DynamoDB Local listens on (default 127.0.0.1; for sam local on
                     Linux, the Docker bridge's address: see docs/sam.md)
  ${ENV.booksTableName}   books table (default ${DEFAULT_TABLE_NAMES.books})
  ${ENV.authTableName}    auth table (default ${DEFAULT_TABLE_NAMES.auth})
  LOCAL_USERS        name:password pairs, comma-separated, created or updated at start (default demo:demo)
  ${ENV.realm}         authentication realm (default ${DEFAULTS.realm})
  ${ENV.publicReads}       true: the two GET routes need no credentials (default false)
  ${ENV.requireIfMatch}   true: PUT, PATCH and DELETE without If-Match get 428 (default false)
  ${ENV.corsAllowedOrigins}  browser origins allowed to call the API (CORS), comma-separated (default none)
  ${ENV.nonceSecret}       HMAC key for Digest nonces (default: a new random one per start)
  ${ENV.digestAlgorithms}   MD5, SHA-256 or both comma-separated: the Digest challenges offered, in order (default MD5)
  ${ENV.basicChallenge}    last, first or none: the Basic challenge after the Digest ones, before them, or left
                     out (default last; see docs/security.md#clients)
  ${ENV.failureLimit}        failures counted per account in any rolling hour (default ${DEFAULT_LOCKOUT_POLICY.failureLimit})
  ${ENV.lockoutAfter}        consecutive failures before an account is locked (default ${DEFAULT_LOCKOUT_POLICY.lockoutAfter})
  ${ENV.lockoutSeconds}      the first lockout, doubled by each further failure (default ${DEFAULT_LOCKOUT_POLICY.lockoutSeconds})
  ${ENV.lockoutMaxSeconds}  the longest lockout (default ${DEFAULT_LOCKOUT_POLICY.lockoutMaxSeconds}); \`npm run users -- unlock NAME\` lifts one
  ${ENV.listMaxBooks}     at most this many books in one unpaged list, else 422 (default ${DEFAULTS.listMaxBooks})
  ${ENV.logLevel}         INFO shows the JSON access line Lambda logs for each request
                               (default WARN here: the one-line request log is easier to read)
  ${ENV.metricsDisabled}  false prints the EMF metric lines Lambda emits (default true here)
`;

/** An option that `npm start` cannot run with; the message names it. */
export class LocalStartError extends Error {
  override readonly name = 'LocalStartError';
}

export interface LocalOptions {
  port: number;
  dataDir: string;
  /** A DynamoDB to use; undefined: start DynamoDB Local. */
  dynamodbEndpoint: string | undefined;
  /** Where the DynamoDB Local it starts listens (undefined: any free port, 127.0.0.1). */
  dynamodbPort: number | undefined;
  dynamodbHost: string | undefined;
  tables: TableNames;
  realm: string;
  publicReads: boolean;
  nonceSecret: string;
  users: Array<{ username: string; password: string }>;
  /** The environment the handlers read, as a function's would be set on Lambda. */
  functionEnvironment: Record<string, string>;
}

const portNumber = (name: string, raw: string, lowest: number) => {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < lowest || port > 65535) {
    throw new LocalStartError(`${name} must be a port number, got "${raw}"`);
  }
  return port;
};

/** Step 1: the options from the command line and environment; undefined when --help was asked. */
export const parseLocalOptions = (argv: readonly string[], env: Environment): LocalOptions | undefined => {
  if (argv.includes('--help') || argv.includes('-h')) return undefined;
  const dynamodbHost = env.DYNAMODB_HOST || undefined;
  if (dynamodbHost !== undefined && isIP(dynamodbHost) === 0) {
    throw new LocalStartError(`DYNAMODB_HOST must be an IP address of this machine, got "${dynamodbHost}"`);
  }
  const setting = <Key extends Parameters<typeof readSetting>[0]>(key: Key) => {
    try {
      return readSetting(key, env);
    } catch (error) {
      throw new LocalStartError((error as Error).message, { cause: error });
    }
  };
  let users: LocalOptions['users'];
  try {
    users = parseUserList(env.LOCAL_USERS ?? 'demo:demo');
  } catch (error) {
    throw new LocalStartError((error as Error).message, { cause: error });
  }
  const tables = {
    books: env[ENV.booksTableName] || DEFAULT_TABLE_NAMES.books,
    auth: env[ENV.authTableName] || DEFAULT_TABLE_NAMES.auth,
  };
  const realm = setting('realm');
  let lockout: LockoutPolicy;
  try {
    lockout = readLockoutPolicy(env); // here, so that a mistyped value stops the start, not every authentication
  } catch (error) {
    throw new LocalStartError((error as Error).message, { cause: error });
  }
  const nonceSecret = setting('nonceSecret') ?? randomBytes(32).toString('base64');
  return {
    port: portNumber('PORT', env.PORT ?? '3000', 0),
    dataDir: env.DATA_DIR || '.data',
    dynamodbEndpoint: setting('dynamodbEndpoint'),
    dynamodbPort: env.DYNAMODB_PORT ? portNumber('DYNAMODB_PORT', env.DYNAMODB_PORT, 1) : undefined,
    dynamodbHost,
    tables,
    realm,
    publicReads: setting('publicReads'),
    nonceSecret,
    users,
    functionEnvironment: toEnvironment({
      booksTableName: tables.books,
      authTableName: tables.auth,
      realm,
      nonceSecret,
      publicReads: setting('publicReads'),
      digestAlgorithms: setting('digestAlgorithms'),
      ...lockout,
      basicChallenge: setting('basicChallenge'),
      ...(setting('corsAllowedOrigins').length > 0 && { corsAllowedOrigins: setting('corsAllowedOrigins') }),
      // On a laptop the JSON access line and EMF blobs repeat the one-line request log; errors still print.
      logLevel: setting('logLevel') ?? 'WARN',
      metricsDisabled: setting('metricsDisabled') ?? 'true',
    }),
  };
};

export interface LocalService {
  server: Server;
  /** The DynamoDB Local this start launched, once it runs; undefined when it uses one given by endpoint. */
  database: DynamoDbLocal | undefined;
  /** Lets the requests that arrived meanwhile through, once the database is ready. */
  ready(): void;
  /** Closes the server and stops the DynamoDB Local it started. */
  stop(): Promise<void>;
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
  const server = createLocalServer({
    publicReads: options.publicReads,
    realm: options.realm,
    ready: new Promise<void>((done) => {
      ready = done;
    }),
    log,
  });
  // Claim the port first: a port in use is reported at once, before DynamoDB Local spends seconds starting.
  await listen(server, options.port).catch((error: NodeJS.ErrnoException) => {
    throw new LocalStartError(
      error.code === 'EADDRINUSE' ? `port ${options.port} is already in use; set PORT to another one` : error.message,
      { cause: error },
    );
  });
  const service: LocalService = {
    server,
    database: undefined,
    ready,
    stop: async () => {
      server.close();
      server.closeAllConnections();
      if (service.database) forgetDatabase(options.dataDir);
      await service.database?.stop();
    },
  };
  return service;
};

const startDatabase = async (options: LocalOptions, log: (line: string) => void) => {
  const removed = await checkForStaleDatabase(options.dataDir).catch((error: Error) => {
    throw new LocalStartError(
      error instanceof StaleDatabaseError ? error.message : `cannot read ${options.dataDir}: ${error.message}`,
      { cause: error },
    );
  });
  if (removed) log(`Removed the address of a DynamoDB Local that no longer runs (${options.dataDir})`);
  log(`Starting DynamoDB Local (data in ${options.dataDir}) ...`);
  const database = await startDynamoDbLocal({
    dataDir: options.dataDir,
    ...(options.dynamodbPort && { port: options.dynamodbPort }),
    ...(options.dynamodbHost && { host: options.dynamodbHost }),
  }).catch((error: Error) => {
    throw new LocalStartError(
      error instanceof JavaMissingError ? error.message : `DynamoDB Local failed to start: ${error.message}`,
      { cause: error },
    );
  });
  log(`DynamoDB Local at ${database.endpoint}`);
  mkdirSync(options.dataDir, { recursive: true });
  recordDatabase(options.dataDir, database);
  return database;
};

const prepareTables = async (options: LocalOptions, endpoint: string) => {
  try {
    await ensureTables(createDynamoClient(endpoint), options.tables);
    const userStore = new DynamoUserStore(createDocumentClient(endpoint), options.tables.auth);
    for (const { username, password } of options.users) {
      await userStore.put(userRecord(username, password, options.realm));
    }
  } catch (error) {
    throw new LocalStartError(`could not prepare the tables at ${endpoint}: ${(error as Error).message}`, {
      cause: error,
    });
  }
};

/**
 * Step 3: the database (DynamoDB Local started, or the one given), its tables and the LOCAL_USERS;
 * then the waiting requests go through. On failure the service is stopped before the error is thrown.
 */
export const startStorage = async (
  service: LocalService,
  options: LocalOptions,
  log: (line: string) => void = console.log,
): Promise<void> => {
  try {
    if (options.dynamodbEndpoint) log(`Using DynamoDB at ${options.dynamodbEndpoint}`);
    else service.database = await startDatabase(options, log);
    const endpoint = options.dynamodbEndpoint ?? (service.database as DynamoDbLocal).endpoint;
    Object.assign(process.env, toEnvironment({ dynamodbEndpoint: endpoint }));
    await prepareTables(options, endpoint);
  } catch (error) {
    await service.stop();
    throw error;
  }
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
  // The server answers every request's failure itself; whatever still escapes ends the process, with
  // DynamoDB Local and the files that name it, rather than leaving them behind.
  const crash = (error: unknown) => {
    console.error('error: the local server failed and stops', error);
    void service.stop().finally(() => process.exit(1));
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
};

/** Step 5: what is running, where, and for whom. */
export const readyReport = (options: LocalOptions): string[] => {
  // Names only: a password set through LOCAL_USERS never reaches the console (the documented demo:demo may).
  const shown = options.users.map((u) => (u.username === 'demo' && u.password === 'demo' ? 'demo:demo' : u.username));
  return [
    `Book Library API listening on http://127.0.0.1:${options.port}/api/books`,
    `Realm "${options.realm}", users: ${shown.join(', ') || 'none'}`,
    options.publicReads
      ? 'GET routes are public; writes need credentials.'
      : 'Every /api/books route needs credentials (Basic or Digest).',
  ];
};
