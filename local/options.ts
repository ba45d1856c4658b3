import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { parseRoleList, parseUserList, roleOf } from '../ops/user-records';
import { DEFAULT_LOCKOUT_POLICY, type LockoutPolicy } from '../shared/auth/lockout';
import { LOCAL_DEFAULT_ROLE, ROLE_CHOICES, type Role } from '../shared/auth/roles';
import {
  DEFAULTS,
  ENV,
  type Environment,
  REALM_RULE,
  readLockoutPolicy,
  readSetting,
  SETTINGS,
  type SettingKey,
  toEnvironment,
} from '../shared/config';
import type { DeliveryOptions } from './events/delivery';
import { DEFAULT_LOCAL_EVENT_DELIVERY, parseEventDelivery } from './events/delivery-options';
import { DEFAULT_TABLE_NAMES, type TableNames } from './tables';

/* `npm start`'s step 1 (local/start.ts has the rest): its options, from the command line and environment. */

export const HELP = `Usage: npm start

Runs the Book Library API on http://127.0.0.1:$PORT with Dynoxide (a local DynamoDB
emulator, started and stopped with it), using the same handlers that run on AWS Lambda.

Environment:
  PORT               port to listen on (default 3000; 0: any free one, printed when ready)
  DATA_DIR           where Dynoxide keeps its data file, dynoxide.db (default .data)
  ${ENV.dynamodbEndpoint}  use this DynamoDB instead of starting Dynoxide (tables created if missing)
  DYNAMODB_PORT      port for the Dynoxide it starts (default: any free one; sam local wants 8000)
  DYNAMODB_HOST      address that Dynoxide listens on (default 127.0.0.1; for sam local on
                     Linux, the Docker bridge's address: see docs/sam.md)
  DYNOXIDE_BIN       the Dynoxide binary to run (default: the npm package on linux-x64, else
                     dynoxide-rs built once with cargo; see docs/decisions/dynoxide-local-database.md)
  ${ENV.booksTableName}   books table (default ${DEFAULT_TABLE_NAMES.books})
  ${ENV.authTableName}    auth table (default ${DEFAULT_TABLE_NAMES.auth})
  LOCAL_USERS        name:password pairs, comma-separated, created or updated at start (default demo:demo);
                     an empty password, or pairs joined by ";", are refused
  LOCAL_ROLES        name=role pairs, comma-separated, for users of LOCAL_USERS: ${ROLE_CHOICES}
                     (unset: every user is an ${LOCAL_DEFAULT_ROLE}, for local development, as npm start says;
                     set: a user it does not name is a reader); a reader reads books, an editor also
                     creates and changes them, an admin also deletes them
  ${ENV.realm}         authentication realm (default ${DEFAULTS.realm}): ${REALM_RULE}
  ${ENV.publicReads}       true: the two GET routes need no credentials (default false)
  ${ENV.requireIfMatch}   true: PUT, PATCH and DELETE without If-Match get 428 (default false)
  ${ENV.corsAllowedOrigins}  browser origins allowed to call the API (CORS), comma-separated (default none)
  ${ENV.publicBaseUrl}    the URL a proxy serves the API's root at (https://books.example.com): Location and
                     the links at / and /api are written on it (default this server's own address)
  ${ENV.originSecretSha256} SHA-256 (hex) of the secret a CloudFront front sends in X-Origin-Secret: its
                     CloudFront-Viewer-Address is then what the guessing limit counts (default none: the peer's address)
  LOCAL_STAGE        a stage name every path then starts with (/prod/api/books), as on an execute-api
                     URL, to try a front that adds it (a CloudFront origin path); default none
  ${ENV.nonceSecret}       HMAC key for Digest nonces (default: a new random one per start)
  ${ENV.digestAlgorithms}   MD5, SHA-256 or both comma-separated: the Digest challenges offered, in order (default MD5)
  ${ENV.basicChallenge}    last, first or none: the Basic challenge after the Digest ones, before them, or left
                     out (default last; see docs/security.md#clients)
  ${ENV.failureLimit}        failures counted per account in any rolling hour (default ${DEFAULT_LOCKOUT_POLICY.failureLimit})
  ${ENV.lockoutAfter}        consecutive failures before an account is locked (default ${DEFAULT_LOCKOUT_POLICY.lockoutAfter})
  ${ENV.lockoutSeconds}      the first lockout, doubled by each further failure (default ${DEFAULT_LOCKOUT_POLICY.lockoutSeconds})
  ${ENV.lockoutMaxSeconds}  the longest lockout (default ${DEFAULT_LOCKOUT_POLICY.lockoutMaxSeconds}); \`npm run users -- unlock NAME\` lifts one
  ${ENV.listMaxBooks}     at most this many books in one unpaged list, else 422 (default ${DEFAULTS.listMaxBooks})
  ${ENV.nonceLifetimeSeconds}  seconds a Digest nonce is accepted after it was issued (default
                     ${DEFAULTS.nonceLifetimeSeconds}, the stack's fixed value)
  ${ENV.logLevel}         INFO shows the JSON access line Lambda logs for each request
                               (default WARN here: the one-line request log is easier to read)
  ${ENV.metricsDisabled}  false prints the EMF metric lines Lambda emits (default true here)
  LOCAL_EVENTS_URL   POST each book's change event here as a CloudEvent (structured mode, one per request);
                     \`npm run events:watch\` prints them (default: none, no events)
  LOCAL_EVENTS_ATTEMPTS  attempts per event before it goes to DATA_DIR/events-dead-letter.jsonl (default ${DEFAULT_LOCAL_EVENT_DELIVERY.attempts})
  LOCAL_EVENTS_FIRST_RETRY_MS  wait after the first failed attempt, doubled after each further one (default ${DEFAULT_LOCAL_EVENT_DELIVERY.firstBackoffMs})
  ${ENV.eventTypePrefix}  change events' type is <prefix>.book.created, .updated or .deleted (default ${DEFAULTS.eventTypePrefix})
  ${ENV.eventSource}       change events' source (default ${DEFAULTS.eventSource})
`;

/** An option that `npm start` cannot run with; the message names it. */
export class LocalStartError extends Error {
  override readonly name = 'LocalStartError';
}

export interface LocalOptions {
  port: number;
  dataDir: string;
  /** A DynamoDB to use; undefined: start Dynoxide. */
  dynamodbEndpoint: string | undefined;
  /** Where the Dynoxide it starts listens (undefined: any free port, 127.0.0.1). */
  dynamodbPort: number | undefined;
  dynamodbHost: string | undefined;
  tables: TableNames;
  realm: string;
  publicReads: boolean;
  nonceSecret: string;
  users: Array<{ username: string; password: string; role: Role }>;
  /** Where the books' change events go (LOCAL_EVENTS_URL); undefined: nowhere, the stream is not read. */
  events: DeliveryOptions | undefined;
  /** LOCAL_ROLES was not set, so every LOCAL_USERS user is an admin (said in npm start's first lines). */
  usersAdminByDefault: boolean;
  /** The environment the handlers read, as a function's would be set on Lambda. */
  functionEnvironment: Record<string, string>;
  /** LOCAL_STAGE: the stage every path starts with; undefined: none. */
  stage: string | undefined;
}

const portNumber = (name: string, raw: string, lowest: number) => {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < lowest || port > 65535) {
    throw new LocalStartError(`${name} must be a port number, got "${raw}"`);
  }
  return port;
};

/**
 * Settings npm start does not read as the functions do: the table names it sets itself when unset,
 * and the change events' bus, which only the AWS publisher uses (locally, LOCAL_EVENTS_URL).
 */
const NOT_READ_HERE: ReadonlySet<SettingKey> = new Set(['booksTableName', 'authTableName', 'eventBusName']);

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
    const listed = parseUserList(env.LOCAL_USERS ?? 'demo:demo');
    const roles = parseRoleList(
      env.LOCAL_ROLES ?? '',
      listed.map((user) => user.username),
    );
    // Unset, LOCAL_USERS stay the admins local development has always had (npm start says so first).
    users = listed.map((user) => ({
      ...user,
      role: env.LOCAL_ROLES === undefined ? LOCAL_DEFAULT_ROLE : roleOf(roles, user.username),
    }));
  } catch (error) {
    throw new LocalStartError((error as Error).message, { cause: error });
  }
  const tables = {
    books: env[ENV.booksTableName] || DEFAULT_TABLE_NAMES.books,
    auth: env[ENV.authTableName] || DEFAULT_TABLE_NAMES.auth,
  };
  // Every setting the handlers read, checked now with their own parsers: a value they would refuse
  // stops the start here, naming the variable, instead of failing every request that reads it.
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    if (!NOT_READ_HERE.has(key)) setting(key);
  }
  const realm = setting('realm');
  let lockout: LockoutPolicy;
  try {
    lockout = readLockoutPolicy(env); // here, so that a mistyped value stops the start, not every authentication
  } catch (error) {
    throw new LocalStartError((error as Error).message, { cause: error });
  }
  const nonceSecret = setting('nonceSecret') ?? randomBytes(32).toString('base64');
  const stage = env.LOCAL_STAGE || undefined;
  if (stage !== undefined && !/^[A-Za-z0-9_-]{1,128}$/.test(stage)) {
    throw new LocalStartError(`LOCAL_STAGE must be letters, digits, - and _ (a stage name), got "${stage}"`);
  }
  let events: DeliveryOptions | undefined;
  try {
    events = parseEventDelivery(env);
  } catch (error) {
    throw new LocalStartError((error as Error).message, { cause: error });
  }
  return {
    stage,
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
    events,
    usersAdminByDefault: env.LOCAL_ROLES === undefined,
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
      publicBaseUrl: setting('publicBaseUrl'),
      // On a laptop the JSON access line and EMF blobs repeat the one-line request log; errors still print.
      logLevel: setting('logLevel') ?? 'WARN',
      metricsDisabled: setting('metricsDisabled') ?? 'true',
    }),
  };
};

/** What npm start says before anything else: a default that would be unsafe anywhere but a laptop. */
export const startNotices = (options: LocalOptions): string[] =>
  options.usersAdminByDefault && options.users.length > 0
    ? [
        `Note: LOCAL_ROLES is not set, so every LOCAL_USERS user (${options.users.map((u) => u.username).join(', ')}) is an ${LOCAL_DEFAULT_ROLE}: ` +
          'fine for local development; set LOCAL_ROLES=name=role,... to give them less.',
      ]
    : [];
