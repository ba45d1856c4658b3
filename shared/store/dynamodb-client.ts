import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readSetting } from '../config';

/**
 * Time limits below the functions' timeout, so a DynamoDB outage ends in the handler's 500 within
 * a bounded time (DYNAMODB_CALL_WORST_CASE_MS) instead of a gateway timeout with no body.
 */
export const CLIENT_LIMITS = {
  maxAttempts: 3,
  connectionTimeout: 1_000,
  requestTimeout: 2_000,
} as const;

/** The SDK's standard retry back-off bases (ms): the n-th retry waits a random time up to base x 2^(n-1). */
const TRANSIENT_BACKOFF_BASE_MS = 50;
const THROTTLING_BACKOFF_BASE_MS = 1_000;

const backoffCeiling = (base: number) =>
  Array.from({ length: CLIENT_LIMITS.maxAttempts - 1 }, (_, i) => base * 2 ** i).reduce((a, b) => a + b, 0);

/** The longest one DynamoDB call can take to fail, by cause; the functions' timeout must exceed each. */
export const DYNAMODB_CALL_WORST_CASE_MS = {
  silentServer: CLIENT_LIMITS.maxAttempts * CLIENT_LIMITS.requestTimeout + backoffCeiling(TRANSIENT_BACKOFF_BASE_MS),
  unreachableHost:
    CLIENT_LIMITS.maxAttempts * CLIENT_LIMITS.connectionTimeout + backoffCeiling(TRANSIENT_BACKOFF_BASE_MS),
  throttled: backoffCeiling(THROTTLING_BACKOFF_BASE_MS),
} as const;

export type ClientLimits = { -readonly [name in keyof typeof CLIENT_LIMITS]: number };

/**
 * For tests and measurements against Dynoxide on a busy machine, never for a handler: one
 * attempt (a timed-out write that is retried can apply twice, and a metered one counts twice) and
 * room for a burst of connections and transactions.
 */
export const PATIENT_CLIENT_LIMITS: ClientLimits = {
  maxAttempts: 1,
  connectionTimeout: 10_000,
  requestTimeout: 60_000,
};

const clientObservers: ((client: DynamoDBClient) => void)[] = [];
/**
 * Has `observe` called with every client made from now on: how `npm start` attaches its DynamoDB
 * call log (local/call-log.ts) from outside, so no function's bundle carries it.
 */
export const observeDynamoClients = (observe: (client: DynamoDBClient) => void): void => {
  clientObservers.push(observe);
};

/** The SDK's name for the middleware that hands each command to the client's logger. */
export const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

/** The settings that bound an AWS SDK client's calls by `limits`: any service, DynamoDB or EventBridge. */
export const timeLimited = ({ maxAttempts, connectionTimeout, requestTimeout }: ClientLimits = CLIENT_LIMITS) => ({
  maxAttempts,
  // Without throwOnRequestTimeout the SDK only logs a warning when requestTimeout passes and keeps
  // waiting: an endpoint that accepts and never answers would hold the function until Lambda kills it.
  requestHandler: { connectionTimeout, requestTimeout, throwOnRequestTimeout: true },
});

/**
 * A client for Lambda, or for a local DynamoDB when `DYNAMODB_ENDPOINT` is set (Dynoxide
 * accepts any credentials, so fixed ones keep a laptop without AWS configuration working).
 * `limits` overrides CLIENT_LIMITS for measurements and tests on a busy machine, never in a handler.
 */
export const createDynamoClient = (
  endpoint = readSetting('dynamodbEndpoint'),
  limits: Partial<ClientLimits> = {},
): DynamoDBClient => {
  const local: DynamoDBClientConfig = endpoint
    ? {
        endpoint,
        region: readSetting('region') ?? 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }
    : {};
  const client = new DynamoDBClient({ ...timeLimited({ ...CLIENT_LIMITS, ...limits }), ...local });
  // The service gives the SDK no logger, yet its default no-op logger has an `info` method, so the
  // logger middleware still builds a copy of every command's input and output with sensitive
  // values masked, only to discard it: for a whole list, more garbage than the books themselves.
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  for (const observe of clientObservers) observe(client);
  return client;
};

const documentClientOf = (client: DynamoDBClient): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

export const createDocumentClient = (
  endpoint = readSetting('dynamodbEndpoint'),
  limits: Partial<ClientLimits> = {},
): DynamoDBDocumentClient => documentClientOf(createDynamoClient(endpoint, limits));

/**
 * The authorizer's limits: one retry of any failed call (throttled, timed out, refused) and a
 * shorter wait per attempt, so a throttled or silent auth table answers 503 with Retry-After
 * within AUTHORIZER_CALL_WORST_CASE_MS per call instead of holding the request through the SDK's
 * three attempts (6 s when the database stops answering).
 */
export const AUTHORIZER_CLIENT_LIMITS = {
  maxAttempts: 2,
  connectionTimeout: 1_000,
  requestTimeout: 1_000,
} as const;

/** The longest one auth-table call can take to fail: two attempts and the back-off between them. */
export const AUTHORIZER_CALL_WORST_CASE_MS = Math.max(
  AUTHORIZER_CLIENT_LIMITS.maxAttempts * AUTHORIZER_CLIENT_LIMITS.requestTimeout + TRANSIENT_BACKOFF_BASE_MS,
  AUTHORIZER_CLIENT_LIMITS.requestTimeout + THROTTLING_BACKOFF_BASE_MS,
);

export const createAuthorizerDocumentClient = (endpoint = readSetting('dynamodbEndpoint')): DynamoDBDocumentClient =>
  createDocumentClient(endpoint, AUTHORIZER_CLIENT_LIMITS);
