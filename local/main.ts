import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { isIP } from 'node:net';
import { parseUserList, userRecord } from '../shared/auth/users';
import { DynamoUserStore } from '../shared/store/dynamodb-auth-store';
import { createDocumentClient, createDynamoClient } from '../shared/store/dynamodb-client';
import { type DynamoDbLocal, JavaMissingError, startDynamoDbLocal } from './dynamodb-local';
import { endpointFile } from './endpoint-file';
import { createLocalServer } from './server';
import { DEFAULT_TABLE_NAMES, ensureTables } from './tables';

const HELP = `Usage: npm start

Runs the Book Library API on http://127.0.0.1:$PORT with DynamoDB Local, using the same
handlers that run on AWS Lambda.

Environment:
  PORT               port to listen on (default 3000)
  DATA_DIR           where DynamoDB Local keeps its files (default .data)
  DYNAMODB_ENDPOINT  use this DynamoDB instead of starting DynamoDB Local (tables created if missing)
  DYNAMODB_PORT      port for the DynamoDB Local it starts (default: any free one; sam local wants 8000)
  DYNAMODB_HOST      address that DynamoDB Local listens on (default 127.0.0.1; for sam local on
                     Linux, the Docker bridge's address: see docs/sam.md)
  BOOKS_TABLE_NAME   books table (default ${DEFAULT_TABLE_NAMES.books})
  AUTH_TABLE_NAME    auth table (default ${DEFAULT_TABLE_NAMES.auth})
  LOCAL_USERS        name:password pairs, comma-separated, created or updated at start (default demo:demo)
  AUTH_REALM         authentication realm (default books)
  PUBLIC_READS       true: the two GET routes need no credentials (default false)
  NONCE_SECRET       HMAC key for Digest nonces (default: a new random one per start)
  DIGEST_ALGORITHM   MD5, SHA-256 or both comma-separated: the Digest challenges offered, in order (default MD5)
  BASIC_CHALLENGE    last, first or none: the Basic challenge after the Digest ones, before them, or left
                     out (default last; see docs/security.md#clients)
  POWERTOOLS_LOG_LEVEL         INFO shows the JSON access line Lambda logs for each request
                               (default WARN here: the one-line request log is easier to read)
  POWERTOOLS_METRICS_DISABLED  false prints the EMF metric lines Lambda emits (default true here)
`;

const fail = (message: string): never => {
  console.error(`error: ${message}`);
  process.exit(1);
};

const listen = (server: Server, port: number) =>
  new Promise<void>((done, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      done();
    });
  });

/**
 * The local composition root: it sets the environment the handlers' own roots read (table names,
 * realm, nonce key), starts or finds the database, and hands both to the local server, which loads
 * the same handler modules the stack deploys.
 */
const main = async () => {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(HELP);
    return;
  }
  const port = Number(process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`PORT must be a port number, got "${process.env.PORT}"`);
  const dataDir = process.env.DATA_DIR || '.data';
  process.env.BOOKS_TABLE_NAME ??= DEFAULT_TABLE_NAMES.books;
  process.env.AUTH_TABLE_NAME ??= DEFAULT_TABLE_NAMES.auth;
  process.env.AUTH_REALM ||= 'books';
  process.env.NONCE_SECRET ||= randomBytes(32).toString('base64');
  // On a laptop the JSON access line and EMF blobs repeat the one-line request log; errors still print.
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const realm = process.env.AUTH_REALM;
  const publicReads = process.env.PUBLIC_READS === 'true';
  let users: ReturnType<typeof parseUserList> = [];
  try {
    users = parseUserList(process.env.LOCAL_USERS ?? 'demo:demo');
  } catch (error) {
    fail((error as Error).message);
  }

  let database: DynamoDbLocal | undefined;
  let ready!: () => void;
  const server = createLocalServer({
    publicReads,
    realm,
    ready: new Promise<void>((done) => {
      ready = done;
    }),
    log: (line) => console.log(line),
  });
  // Claim the port first: a port in use is reported at once, before DynamoDB Local spends seconds starting.
  await listen(server, port).catch((error: NodeJS.ErrnoException) =>
    fail(error.code === 'EADDRINUSE' ? `port ${port} is already in use; set PORT to another one` : error.message),
  );

  let stopping = false;
  const stop = async (signal: string) => {
    // A terminal's Ctrl-C reaches npm, tsx and this process alike: stop once, ignore the echoes.
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal} received, stopping`);
    server.close();
    server.closeAllConnections();
    if (database) rmSync(endpointFile(dataDir), { force: true });
    await database?.stop();
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  if (process.env.DYNAMODB_ENDPOINT) {
    console.log(`Using DynamoDB at ${process.env.DYNAMODB_ENDPOINT}`);
  } else {
    console.log(`Starting DynamoDB Local (data in ${dataDir}) ...`);
    const dynamoPort = process.env.DYNAMODB_PORT ? Number(process.env.DYNAMODB_PORT) : undefined;
    if (dynamoPort !== undefined && !(Number.isInteger(dynamoPort) && dynamoPort > 0 && dynamoPort <= 65535))
      fail(`DYNAMODB_PORT must be a port number, got "${process.env.DYNAMODB_PORT}"`);
    const dynamoHost = process.env.DYNAMODB_HOST || undefined;
    if (dynamoHost !== undefined && isIP(dynamoHost) === 0)
      fail(`DYNAMODB_HOST must be an IP address of this machine, got "${dynamoHost}"`);
    database = await startDynamoDbLocal({
      dataDir,
      ...(dynamoPort && { port: dynamoPort }),
      ...(dynamoHost && { host: dynamoHost }),
    }).catch((error: Error) =>
      fail(error instanceof JavaMissingError ? error.message : `DynamoDB Local failed to start: ${error.message}`),
    );
    process.env.DYNAMODB_ENDPOINT = database.endpoint;
    console.log(`DynamoDB Local at ${database.endpoint}`);
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(endpointFile(dataDir), database.endpoint);
  }
  try {
    await ensureTables(createDynamoClient(process.env.DYNAMODB_ENDPOINT), {
      books: process.env.BOOKS_TABLE_NAME,
      auth: process.env.AUTH_TABLE_NAME,
    });
    const userStore = new DynamoUserStore(createDocumentClient(), process.env.AUTH_TABLE_NAME);
    for (const { username, password } of users) await userStore.put(userRecord(username, password, realm));
  } catch (error) {
    await database?.stop();
    fail(`could not prepare the tables at ${process.env.DYNAMODB_ENDPOINT}: ${(error as Error).message}`);
  }
  ready();
  console.log(`Book Library API listening on http://127.0.0.1:${port}/api/books`);
  // Names only: a password set through LOCAL_USERS never reaches the console (the documented demo:demo may).
  const shown = users.map((u) => (u.username === 'demo' && u.password === 'demo' ? 'demo:demo' : u.username));
  console.log(`Realm "${realm}", users: ${shown.join(', ') || 'none'}`);
  console.log(
    publicReads
      ? 'GET routes are public; writes need credentials.'
      : 'Every /api/books route needs credentials (Basic or Digest).',
  );
};

void main();
