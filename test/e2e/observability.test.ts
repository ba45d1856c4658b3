import { randomBytes } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { digestResponse, ha1 } from '../../shared/auth/digest';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { startLocalApi } from '../support/local-api';

/**
 * Everything the process writes while real requests go through the local server, the real
 * authorizer and the real handlers: stdout and stderr (Powertools writes there through its own
 * Console) and the global console (the local server's failure line).
 */
const captured: string[] = [];
const restore: (() => void)[] = [];
const capture = () => {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: unknown) => {
      captured.push(String(chunk));
      return true;
    }) as typeof stream.write;
    restore.push(() => {
      stream.write = write;
    });
  }
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[level];
    console[level] = (...args: unknown[]) => {
      captured.push(args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : String(a))).join(' '));
    };
    restore.push(() => {
      console[level] = original;
    });
  }
};

const USER = 'ops-user';
const PASSWORD = `Pw-${randomBytes(12).toString('hex')}`;
const WRONG_PASSWORD = `Wrong-${randomBytes(12).toString('hex')}`;
const NONCE_SECRET = `nonce-secret-${randomBytes(16).toString('hex')}`;
const BARE_TOKEN = `bare-token-${randomBytes(12).toString('hex')}`;
const REALM = 'books';

let api: Awaited<ReturnType<typeof startLocalApi>>;
const sentAuthorization: string[] = [];

const call = async (path: string, init: RequestInit & { authorization?: string } = {}) => {
  const headers = new Headers(init.headers);
  if (init.authorization) {
    headers.set('Authorization', init.authorization);
    sentAuthorization.push(init.authorization);
  }
  const response = await fetch(`${api.baseUrl}${path}`, { ...init, headers });
  await response.arrayBuffer();
  return response;
};

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** One Digest round: fetch a challenge, answer it (qop=auth, MD5). */
const digest = async (method: string, path: string, password: string, body?: string) => {
  const challenge = (await call(path, { method })).headers.get('www-authenticate') ?? '';
  const nonce = /nonce="([^"]+)"/.exec(challenge)?.[1] ?? '';
  const opaque = /opaque="([^"]+)"/.exec(challenge)?.[1] ?? '';
  const cnonce = randomBytes(8).toString('hex');
  const response = digestResponse({
    algorithm: 'MD5',
    ha1: ha1('MD5', USER, REALM, password),
    method,
    uri: path,
    nonce,
    qop: { qop: 'auth', nc: '00000001', cnonce },
  });
  return call(path, {
    method,
    ...(body && { body, headers: { 'Content-Type': 'application/json' } }),
    authorization: `Digest username="${USER}", realm="${REALM}", nonce="${nonce}", uri="${path}", qop=auth, nc=00000001, cnonce="${cnonce}", response="${response}", opaque="${opaque}", algorithm=MD5`,
  });
};

/** JSON log lines (Powertools access lines, error lines, EMF metrics), parsed. */
const jsonLines = () =>
  captured
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const statuses: Record<string, number> = {};
let authorizerFailureRetryAfter: string | null = null;

beforeAll(async () => {
  api = await startLocalApi({
    env: {
      POWERTOOLS_LOG_LEVEL: 'DEBUG',
      POWERTOOLS_LOGGER_LOG_EVENT: 'true',
      POWERTOOLS_METRICS_DISABLED: 'false',
      NONCE_SECRET,
    },
  });
  await new DynamoUserStore(api.tables.documentClient, api.tables.names.auth).put({
    ...userRecord(USER, PASSWORD, REALM),
    role: 'admin',
  });
  capture();
  const book = JSON.stringify({ title: 'Logs', author: 'Ops', isbn: `ops-${process.pid}`, publicationYear: 2001 });
  statuses.basicOk = (await call('/api/books', { authorization: basic(USER, PASSWORD) })).status;
  statuses.digestCreate = (await digest('POST', '/api/books', PASSWORD, book)).status;
  statuses.digestRead = (await digest('GET', '/api/books/1', PASSWORD)).status;
  statuses.basicWrong = (await call('/api/books', { authorization: basic(USER, WRONG_PASSWORD) })).status;
  statuses.digestWrong = (await digest('GET', '/api/books', WRONG_PASSWORD)).status;
  statuses.malformed = (await call('/api/books', { authorization: `Digest username="${USER}", ${PASSWORD}` })).status;
  statuses.bareToken = (await call('/api/books', { authorization: BARE_TOKEN })).status;
  statuses.notFound = (await call('/api/books/999', { authorization: basic(USER, PASSWORD) })).status;
  // An unhandled failure in a handler: its table is gone.
  await api.tables.client.send(new DeleteTableCommand({ TableName: api.tables.names.books }));
  statuses.handlerFailure = (await call('/api/books/1', { authorization: basic(USER, PASSWORD) })).status;
  // And in the authorizer, with valid credentials: the user table is gone. The gateway's
  // AUTHORIZER_FAILURE response makes that a 503 with a time to try again, not a 500.
  await api.tables.client.send(new DeleteTableCommand({ TableName: api.tables.names.auth }));
  const authorizerFailure = await call('/api/books', { authorization: basic(USER, PASSWORD) });
  statuses.authorizerFailure = authorizerFailure.status;
  authorizerFailureRetryAfter = authorizerFailure.headers.get('retry-after');
  for (const undo of restore) undo();
}, 60_000);

afterAll(() => api?.close());

describe('logs and metrics of real requests', () => {
  it('ran every kind of request with the expected outcome', () => {
    expect(statuses).toEqual({
      basicOk: 200,
      digestCreate: 201,
      digestRead: 200,
      basicWrong: 401,
      digestWrong: 401,
      malformed: 401,
      bareToken: 401,
      notFound: 404,
      handlerFailure: 500,
      authorizerFailure: 503,
    });
    expect(authorizerFailureRetryAfter).toBe('1');
  });

  it('writes one access line per handled request: request id, route, method, status, latency, user', () => {
    const access = jsonLines().filter((line) => line.message === 'Request');
    expect(access.map((line) => `${line.route} ${line.status}`)).toEqual([
      'ListBooks 200',
      'CreateBook 201',
      'GetBook 200',
      'GetBook 404',
      'GetBook 500',
    ]);
    for (const line of access) {
      expect(line).toMatchObject({
        level: 'INFO',
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        method: expect.any(String),
        latencyMs: expect.any(Number),
        user: USER,
        service: 'book-library',
      });
    }
  });

  it('logs each denial from the authorizer under the authorizer’s own function name and request id', () => {
    const denials = jsonLines().filter((line) => line.message === 'Authentication failed');
    expect(denials.length).toBeGreaterThanOrEqual(4);
    for (const line of denials) {
      expect(line).toMatchObject({ function_name: 'Authorizer', function_request_id: line.requestId });
    }
  });

  it('logs an unhandled error once, at ERROR level, with the request id', () => {
    const errors = jsonLines().filter((line) => line.level === 'ERROR');
    expect(errors).toHaveLength(1);
    const failed = jsonLines().find((line) => line.message === 'Request' && line.status === 500);
    expect(errors[0]?.awsRequestId).toBe(failed?.awsRequestId);
  });

  it('publishes EMF counts of 4xx and 5xx per route, and of authentication failures', () => {
    const metrics = jsonLines().filter((line) => line._aws);
    const names = metrics.flatMap((line) =>
      (line._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] }).CloudWatchMetrics.flatMap((m) =>
        m.Metrics.map((metric) => `${metric.Name}${line.route ? ` ${line.route}` : ''}`),
      ),
    );
    expect(names.filter((name) => name.startsWith('ClientErrors'))).toEqual(['ClientErrors GetBook']);
    expect(names.filter((name) => name.startsWith('ServerErrors'))).toEqual(['ServerErrors GetBook']);
    // wrong Basic, wrong Digest, malformed, bare token
    expect(names.filter((name) => name === 'AuthenticationFailures')).toHaveLength(4);
    expect(names.filter((name) => name === 'AuthenticationChallenges')).toHaveLength(3); // the Digest first legs
    for (const line of metrics) {
      expect((line._aws as { CloudWatchMetrics: { Namespace: string }[] }).CloudWatchMetrics[0]?.Namespace).toBe(
        'BookLibrary',
      );
    }
  });

  it('never writes an Authorization value, password, HA1 or the nonce secret, even at DEBUG with event logging asked for', () => {
    const output = captured.join('');
    expect(output.length).toBeGreaterThan(1000); // the capture saw the traffic
    const secrets = [
      PASSWORD,
      WRONG_PASSWORD,
      NONCE_SECRET,
      BARE_TOKEN,
      ...sentAuthorization,
      ...sentAuthorization.map((value) => value.replace(/^\S+\s+/, '')), // the credentials without the scheme
      ...sentAuthorization.flatMap((value) => [...value.matchAll(/response="([^"]+)"/g)].map((m) => m[1] as string)),
      ha1('MD5', USER, REALM, PASSWORD),
      ha1('SHA-256', USER, REALM, PASSWORD),
      ha1('MD5', USER, REALM, WRONG_PASSWORD),
      ha1('SHA-256', USER, REALM, WRONG_PASSWORD),
      Buffer.from(NONCE_SECRET).toString('base64'),
    ];
    expect(sentAuthorization.length).toBeGreaterThanOrEqual(8);
    for (const secret of secrets) expect(output, `leaked: ${secret.slice(0, 24)}`).not.toContain(secret);
  });
});
