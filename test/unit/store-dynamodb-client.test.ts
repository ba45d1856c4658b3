import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AUTHORIZER_CALL_WORST_CASE_MS,
  CLIENT_LIMITS,
  createDocumentClient,
  createDynamoClient,
  DYNAMODB_CALL_WORST_CASE_MS,
  observeDynamoClients,
  PATIENT_CLIENT_LIMITS,
  SDK_LOGGER_MIDDLEWARE,
} from '../../shared/store/dynamodb-client';

/**
 * The DynamoDB client's limits bound how long a failing call can hold a function (the stack's
 * timeouts are checked against DYNAMODB_CALL_WORST_CASE_MS in test/infra; test/reliability/faults-*
 * show the limits at work against servers that refuse, stall and throttle).
 */
describe('the DynamoDB client', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  /** The options the client's HTTP handler was made with. */
  const handlerOptions = async (client: ReturnType<typeof createDynamoClient>) =>
    (await (client.config.requestHandler as unknown as { configProvider: Promise<Record<string, unknown>> })
      .configProvider) as Record<string, unknown>;

  it('gives up on a call after 3 attempts of at most 2 s each, 1 s to connect, failing instead of waiting on', async () => {
    const client = createDynamoClient('http://localhost:8000');
    expect(CLIENT_LIMITS).toStrictEqual({ maxAttempts: 3, connectionTimeout: 1_000, requestTimeout: 2_000 });
    expect(await client.config.maxAttempts()).toBe(3);
    expect(await handlerOptions(client)).toMatchObject({
      connectionTimeout: 1_000,
      requestTimeout: 2_000,
      throwOnRequestTimeout: true,
    });
  });

  it('the same limits hold for the service’s client, without a local endpoint', async () => {
    vi.stubEnv('DYNAMODB_ENDPOINT', undefined);
    const client = createDynamoClient();
    expect(client.config.isCustomEndpoint).toBe(false);
    expect(await client.config.maxAttempts()).toBe(3);
    expect(await handlerOptions(client)).toMatchObject({ requestTimeout: 2_000, throwOnRequestTimeout: true });
  });

  it('talks to a local DynamoDB at DYNAMODB_ENDPOINT with fixed credentials, in AWS_REGION or "local"', async () => {
    vi.stubEnv('DYNAMODB_ENDPOINT', 'http://127.0.0.1:8123');
    vi.stubEnv('AWS_REGION', undefined);
    const local = createDynamoClient();
    expect(local.config.isCustomEndpoint).toBe(true);
    expect(await local.config.endpoint?.()).toMatchObject({ hostname: '127.0.0.1', port: 8123, protocol: 'http:' });
    expect(await local.config.region()).toBe('local');
    expect(await local.config.credentials()).toMatchObject({ accessKeyId: 'local', secretAccessKey: 'local' });

    vi.stubEnv('AWS_REGION', 'eu-west-1');
    expect(await createDynamoClient().config.region()).toBe('eu-west-1');
  });

  it('the document client has the same endpoint and limits, and leaves undefined attributes out', async () => {
    const document = createDocumentClient('http://127.0.0.1:8124');
    expect(await document.config.endpoint?.()).toMatchObject({ hostname: '127.0.0.1', port: 8124 });
    expect(await document.config.maxAttempts()).toBe(3);
    expect(document.config.translateConfig?.marshallOptions).toStrictEqual({ removeUndefinedValues: true });
  });

  it('a test or a measurement may override a limit, one at a time, and keeps the others', async () => {
    const patient = createDocumentClient('http://127.0.0.1:8124', PATIENT_CLIENT_LIMITS);
    expect(await patient.config.maxAttempts()).toBe(1);
    expect(await handlerOptions(patient as never)).toMatchObject({ connectionTimeout: 10_000, requestTimeout: 60_000 });
    const oneAttempt = createDynamoClient('http://127.0.0.1:8124', { maxAttempts: 1 });
    expect(await oneAttempt.config.maxAttempts()).toBe(1);
    expect(await handlerOptions(oneAttempt)).toMatchObject({ connectionTimeout: 1_000, requestTimeout: 2_000 });
  });

  it('worst cases: the attempts’ time limits plus the SDK’s back-off ceilings (50 ms, or 1 s when throttled, doubling)', () => {
    const transientBackoff = 50 + 100;
    expect(DYNAMODB_CALL_WORST_CASE_MS).toStrictEqual({
      silentServer: 3 * 2_000 + transientBackoff,
      unreachableHost: 3 * 1_000 + transientBackoff,
      throttled: 1_000 + 2_000,
    });
  });

  it('the authorizer’s worst case: two attempts of 1 s and the back-off between them (50 ms; throttled, 1 s after one)', () => {
    expect(AUTHORIZER_CALL_WORST_CASE_MS).toBe(Math.max(2 * 1_000 + 50, 1_000 + 1_000));
  });

  it('hands every client made after observeDynamoClients to the observer (how npm start logs calls)', () => {
    const observed: DynamoDBClient[] = [];
    observeDynamoClients((client) => observed.push(client));
    const first = createDynamoClient('http://localhost:8000');
    const second = createDynamoClient('http://localhost:8000');
    expect(observed).toEqual([first, second]);
  });

  it('hands the SDK logger nothing: no command input or output (books, user records) is copied for it', () => {
    const client = createDynamoClient('http://localhost:8000');
    // The name is the SDK's own: a client built without the removal lists it.
    expect(new DynamoDBClient({}).middlewareStack.identify().join()).toContain(SDK_LOGGER_MIDDLEWARE);
    expect(client.middlewareStack.identify().join()).not.toContain(SDK_LOGGER_MIDDLEWARE);
    expect(createDocumentClient('http://localhost:8000').middlewareStack.identify().join()).not.toContain(
      SDK_LOGGER_MIDDLEWARE,
    );
  });
});
