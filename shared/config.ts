import { type BasicChallengePlacement, parseBasicChallenge } from './auth/challenge';
import { type DigestAlgorithm, parseDigestOffer } from './auth/digest';
import { checkLockoutPolicy, DEFAULT_LOCKOUT_POLICY, type LockoutPolicy } from './auth/lockout';
import { DEFAULT_LIST_MAX_BOOKS } from './books/limits';

/**
 * The Lambda runtime's configuration: every environment variable the functions and shared/ read,
 * with its name, its default and its parsing, in this one table. Functions and shared/ read a
 * setting only through `readSetting`; infra/ and local/ write the variables only through
 * `toEnvironment` (or the names in `ENV`), so the three can never disagree on a name or a format.
 * A test (test/static/configuration.test.ts) holds functions/ and shared/ to it.
 *
 * How to add a setting (one place):
 * 1. Add an entry to SETTINGS below: `key: setting('ENV_NAME', parser)`, with a one-line comment on
 *    what it does. Pick a parser below (`text`, `optionalText`, `required`, `positiveInteger`,
 *    `flag`, `digestOffer`, `originList`, `basicChallengePlacement`, `logLevel`, `powertoolsFlag`) or write one: it turns the raw text (undefined when the variable is
 *    unset or empty) into the typed value, and throws ConfigurationError naming the variable when
 *    the text is not valid. Give a `format` when the value is not written back with `String()`.
 * 2. A default used elsewhere too (a stack option's default, a tool's) goes into DEFAULTS.
 * 3. Read it where it is used: `readSetting('key')`. Set it from infra/ (a construct's
 *    `environment: toEnvironment({ key: value })`) and, if `npm start` needs it, from local/.
 * 4. Document it for operators in docs/operations.md ("The functions' environment") and, if npm start
 *    reads it, in README's table and local/options.ts's HELP (test/static/docs-names.test.ts fails
 *    until a page names it).
 */

/** The defaults the stack options, the local server and the tools share with the functions. */
export const DEFAULTS = {
  /** The authentication realm (user records are per realm). */
  realm: 'books',
  /** How long a Digest nonce stays valid, in seconds. */
  nonceLifetimeSeconds: 300,
  /** The service name on every log line and metric. */
  serviceName: 'book-library',
  /** The CloudWatch namespace of the service's metrics. */
  metricsNamespace: 'BookLibrary',
  /** At most this many books in one unpaged list: below Lambda's 200 MB at the largest book (shared/books/limits.ts). */
  listMaxBooks: DEFAULT_LIST_MAX_BOOKS,
  /** The table names of `npm start` and the tools when nothing else is given. */
  tableNames: { books: 'books', auth: 'auth' },
  /** Change events' `type` is `<prefix>.book.created`, `.book.updated` or `.book.deleted` (docs/contract.md, "Events"). */
  eventTypePrefix: 'com.example.library',
  /** Change events' `source`, a URI reference (EventBridge's `source` too). */
  eventSource: 'book-library',
} as const;

/** A variable is set, but not to something the runtime can use. */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

/** Raw text of a variable; unset and empty are the same here, as `sam local` can only pass empty. */
type Raw = string | undefined;

interface Setting<Name extends string, Value> {
  readonly name: Name;
  readonly parse: (raw: Raw, name: string) => Value;
  readonly format: (value: NonNullable<Value>) => string;
}

const setting = <const Name extends string, Value>(
  name: Name,
  parse: (raw: Raw, name: string) => Value,
  format: (value: NonNullable<Value>) => string = String,
): Setting<Name, Value> => ({ name, parse, format });

const invalid = (name: string, raw: string, expected: string): never => {
  throw new ConfigurationError(`${name} "${raw}" is not valid: expected ${expected}`);
};

const text = (fallback: string) => (raw: Raw) => raw || fallback;

/**
 * The realm's rule, the stack's and `npm start`'s alike: it is written into the gateway's static
 * challenge (a quoted header value inside a single-quoted mapping expression) and into every Digest
 * challenge as a quoted string, so printable ASCII without quotes or backslashes, 1 to 64 characters.
 */
export const REALM_RULE = 'printable ASCII without quotes or backslashes (at most 64 characters)';
export const isValidRealm = (realm: string) => /^[\x20-\x7e]{1,64}$/.test(realm) && !/["'\\]/.test(realm);
const realmName = (fallback: string) => (raw: Raw, name: string) =>
  !raw ? fallback : isValidRealm(raw) ? raw : invalid(name, raw, REALM_RULE);
const optionalText = (raw: Raw) => raw || undefined;
const sha256Hex = (raw: Raw, name: string): string | undefined =>
  !raw
    ? undefined
    : /^[0-9a-f]{64}$/i.test(raw)
      ? raw.toLowerCase()
      : invalid(name, raw, '64 hexadecimal digits (a SHA-256)');
const required = (raw: Raw, name: string): string => {
  if (!raw) throw new ConfigurationError(`${name} is not set`);
  return raw;
};
const positiveInteger = (fallback: number) => (raw: Raw, name: string) => {
  if (!raw) return fallback;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value > 0 ? value : invalid(name, raw, 'a positive whole number');
};
const flag = (fallback: boolean) => (raw: Raw, name: string) =>
  raw ? raw === 'true' || (raw !== 'false' && invalid(name, raw, '"true" or "false"')) : fallback;
const digestOffer = (raw: Raw, name: string): readonly DigestAlgorithm[] =>
  parseDigestOffer(raw) ?? invalid(name, raw ?? '', 'MD5, SHA-256 or both, comma-separated');
/** Comma-separated origins (`scheme://host[:port]`, as a browser sends `Origin`), each checked. */
const originList = (raw: Raw, name: string): readonly string[] => {
  const origins = (raw ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    if (origin === 'null' || !URL.canParse(origin) || new URL(origin).origin !== origin) {
      invalid(name, raw ?? '', 'origins such as https://app.example.com, comma-separated (no path, no trailing slash)');
    }
  }
  return origins;
};
/** An http(s) URL where a front (a CDN, a proxy) serves the API's root: no query, fragment or user; no trailing slash kept. */
const publicBaseUrl = (raw: Raw, name: string): string | undefined => {
  if (!raw) return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (
    !url ||
    !/^https?:$/.test(url.protocol) ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    raw.includes('?') ||
    raw.includes('#')
  ) {
    return invalid(
      name,
      raw,
      'an http(s) URL such as https://books.example.com or https://example.com/library (no query, no fragment)',
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
};
/** Powertools' log levels; it reads the variable in any case. */
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;
const logLevel = (raw: Raw, name: string): string | undefined =>
  !raw || (LOG_LEVELS as readonly string[]).includes(raw.toUpperCase())
    ? raw || undefined
    : invalid(name, raw, LOG_LEVELS.join(', '));
/** The values Powertools' metrics read as true or false. */
const POWERTOOLS_FLAGS = ['true', 'false', '1', '0', 'yes', 'no', 'y', 'n', 't', 'f', 'on', 'off'];
const powertoolsFlag = (raw: Raw, name: string): string | undefined =>
  !raw || POWERTOOLS_FLAGS.includes(raw.toLowerCase()) ? raw || undefined : invalid(name, raw, '"true" or "false"');
const basicChallengePlacement = (raw: Raw, name: string): BasicChallengePlacement =>
  parseBasicChallenge(raw) ?? invalid(name, raw ?? '', 'last, first or none');

export const SETTINGS = {
  /** The books table (book functions). */
  booksTableName: setting('BOOKS_TABLE_NAME', required),
  /** The auth table: users, spent nonces, the nonce key (authorizer). */
  authTableName: setting('AUTH_TABLE_NAME', required),
  /** The EventBridge bus change events are published to (events function). */
  eventBusName: setting('EVENT_BUS_NAME', required),
  /** The realm of every challenge and of the stored digests. */
  realm: setting('AUTH_REALM', realmName(DEFAULTS.realm)),
  /** Seconds a Digest nonce is accepted after it was issued. */
  nonceLifetimeSeconds: setting('NONCE_LIFETIME_SECONDS', positiveInteger(DEFAULTS.nonceLifetimeSeconds)),
  /** The nonce HMAC key as text (local runs); unset: a random key kept in the auth table. */
  nonceSecret: setting('NONCE_SECRET', optionalText),
  /** The Digest challenges offered, in order (unset: MD5 alone, as the client matrix chose). */
  digestAlgorithms: setting('DIGEST_ALGORITHM', digestOffer, (offer) => offer.join(',')),
  /** Failed passwords counted per account in any rolling hour (authorizer; docs/security.md). */
  failureLimit: setting('AUTH_FAILURE_LIMIT', positiveInteger(DEFAULT_LOCKOUT_POLICY.failureLimit)),
  /** Consecutive failed passwords before an account is locked. */
  lockoutAfter: setting('AUTH_LOCKOUT_AFTER', positiveInteger(DEFAULT_LOCKOUT_POLICY.lockoutAfter)),
  /** The first lockout in seconds; each further failure doubles it. */
  lockoutSeconds: setting('AUTH_LOCKOUT_SECONDS', positiveInteger(DEFAULT_LOCKOUT_POLICY.lockoutSeconds)),
  /** The longest lockout in seconds (at least AUTH_LOCKOUT_SECONDS). */
  lockoutMaxSeconds: setting('AUTH_LOCKOUT_MAX_SECONDS', positiveInteger(DEFAULT_LOCKOUT_POLICY.lockoutMaxSeconds)),
  /** At most this many books in one unpaged list, else 422, decided before the first byte (list function). */
  listMaxBooks: setting('LIST_MAX_BOOKS', positiveInteger(DEFAULTS.listMaxBooks)),
  /** Where the Basic challenge stands beside the Digest ones: last (unset), first, or none. */
  basicChallenge: setting('BASIC_CHALLENGE', basicChallengePlacement),
  /** The two GET routes need no credentials (the OpenAPI document then says so). */
  publicReads: setting('PUBLIC_READS', flag(false)),
  /** Browser origins allowed to call the API (CORS); unset: none, no CORS headers at all. */
  corsAllowedOrigins: setting('CORS_ALLOWED_ORIGINS', originList, (origins) => origins.join(',')),
  /** The URL `Location` and links are written on, for a front that reaches the API under its own origin; unset: the gateway's. */
  publicBaseUrl: setting('PUBLIC_BASE_URL', publicBaseUrl),
  /** The SHA-256 (hex) of the secret a declared front (CloudFront) sends in X-Origin-Secret: then its viewer address is counted (authorizer). */
  originSecretSha256: setting('ORIGIN_SECRET_SHA256', sha256Hex),
  /** PUT, PATCH and DELETE without If-Match get 428 (the stack's requireIfMatch option). */
  requireIfMatch: setting('REQUIRE_IF_MATCH', flag(false)),
  /** Service name on log lines and metrics (Powertools reads the same variable). */
  serviceName: setting('POWERTOOLS_SERVICE_NAME', text(DEFAULTS.serviceName)),
  /** CloudWatch namespace of the EMF metrics. */
  metricsNamespace: setting('POWERTOOLS_METRICS_NAMESPACE', text(DEFAULTS.metricsNamespace)),
  /** Log level; read by Powertools' logger itself (unset: INFO). */
  logLevel: setting('POWERTOOLS_LOG_LEVEL', logLevel),
  /** "true" stops metric output; read by Powertools' metrics itself. */
  metricsDisabled: setting('POWERTOOLS_METRICS_DISABLED', powertoolsFlag),
  /** A DynamoDB endpoint other than AWS's (Dynoxide, locally); unset on Lambda. */
  dynamodbEndpoint: setting('DYNAMODB_ENDPOINT', optionalText),
  /** The region; Lambda sets it, a local endpoint does not need one. */
  region: setting('AWS_REGION', optionalText),
  /** The prefix of change events' `type` (a reverse domain name the consumer's rules match on). */
  eventTypePrefix: setting('EVENT_TYPE_PREFIX', text(DEFAULTS.eventTypePrefix)),
  /** Change events' `source` attribute. */
  eventSource: setting('EVENT_SOURCE', text(DEFAULTS.eventSource)),
} as const;

export type SettingKey = keyof typeof SETTINGS;
export type SettingValue<Key extends SettingKey> = ReturnType<(typeof SETTINGS)[Key]['parse']>;

/** Each setting's environment variable name, for code that must name one (help texts, tests). */
export const ENV = Object.fromEntries(Object.entries(SETTINGS).map(([key, { name }]) => [key, name])) as {
  readonly [Key in SettingKey]: (typeof SETTINGS)[Key]['name'];
};

export type Environment = Readonly<Record<string, string | undefined>>;

/** A setting's value, read from the environment when asked (so a test or `npm start` may set it first). */
export const readSetting = <Key extends SettingKey>(key: Key, env: Environment = process.env): SettingValue<Key> => {
  const { name, parse } = SETTINGS[key];
  return parse(env[name], name) as SettingValue<Key>;
};

/** A setting's text as set, or undefined: for code that only compares it with a value (the DynamoDB call log). */
export const settingText = (key: SettingKey, env: Environment = process.env): string | undefined =>
  env[SETTINGS[key].name] || undefined;

/** The environment variables that give these settings these values (for a function's environment). */
export const toEnvironment = (values: { readonly [Key in SettingKey]?: SettingValue<Key> }): Record<string, string> =>
  Object.fromEntries(
    Object.entries(values)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => {
        const { name, format } = SETTINGS[key as SettingKey] as Setting<string, unknown>;
        return [name, format(value)];
      }),
  );

/** The failure limit and lockout schedule: the four settings together, the longest lockout at least the first. */
export const readLockoutPolicy = (env: Environment = process.env): LockoutPolicy => {
  const policy = {
    failureLimit: readSetting('failureLimit', env),
    lockoutAfter: readSetting('lockoutAfter', env),
    lockoutSeconds: readSetting('lockoutSeconds', env),
    lockoutMaxSeconds: readSetting('lockoutMaxSeconds', env),
  };
  try {
    return checkLockoutPolicy(policy, (field) => ENV[field]);
  } catch (error) {
    throw new ConfigurationError((error as Error).message, { cause: error });
  }
};
