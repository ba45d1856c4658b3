import { createServer, type Server, type Socket } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../local/gateway';
import { freePort } from '../../local/ports';
import { bufferedHandler } from '../../local/streaming-response';
import { GIVE_UP_BEFORE_TIMEOUT_MS } from '../../shared/http/http-handler';
import { CLIENT_LIMITS, DYNAMODB_CALL_WORST_CASE_MS } from '../../shared/store/dynamodb-client';
import { captureLogs } from '../support/log-capture';
import { contextFor, proxyEventFor } from '../support/proxy-event';

/**
 * A DynamoDB endpoint that is unreachable from the first request: a port nobody listens on, and a
 * server that accepts connections and never answers. Each case loads the handlers afresh (a new
 * Lambda container) pointed at that endpoint.
 */
type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
const logs = captureLogs();
afterAll(() => logs.restore());

beforeEach(() => {
  vi.resetModules();
  logs.clear();
  Object.assign(process.env, {
    BOOKS_TABLE_NAME: 'books',
    POWERTOOLS_LOG_LEVEL: 'WARN',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
});

const container = async (endpoint: string) => {
  process.env.DYNAMODB_ENDPOINT = endpoint;
  return {
    list: bufferedHandler((await import('../../functions/books/list')).handler),
    create: (await import('../../functions/books/create')).handler as Handler,
  };
};

const invoke = async (handler: Handler, method: string, body?: unknown, timeoutMs?: number) => {
  const event = proxyEventFor({
    method,
    target: '/api/books',
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }) as APIGatewayProxyEvent;
  const context =
    timeoutMs === undefined ? contextFor(event) : lambdaContext('fuzz', event.requestContext.requestId, timeoutMs);
  const started = performance.now();
  const result = await handler(event, context);
  return { result, ms: performance.now() - started, requestId: context.awsRequestId };
};

const expectGeneric500 = (response: Awaited<ReturnType<typeof invoke>>) => {
  expect(response.result.statusCode).toBe(500);
  expect(JSON.parse(response.result.body)).toEqual({
    timestamp: expect.any(String),
    status: 500,
    message: 'An unexpected error occurred',
  });
  const errors = logs.errors().filter((line) => JSON.stringify(line).includes(response.requestId));
  expect(errors).toHaveLength(1);
};

const book = { title: 'Nowhere', author: 'Nobody', isbn: 'nowhere-1', publicationYear: 2000 };

describe('DynamoDB unreachable', () => {
  it('a port nobody listens on: the generic 500 at once, for reads and writes', async () => {
    const handlers = await container(`http://127.0.0.1:${await freePort()}`);
    for (const response of [await invoke(handlers.list, 'GET'), await invoke(handlers.create, 'POST', book)]) {
      expectGeneric500(response);
      expect(response.ms).toBeLessThan(2_000);
    }
    expect(logs.errors()).toHaveLength(2);
  });

  it('a server that never answers: the generic 500 once the request timeouts and retries are spent', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket); // accept, read, never answer
      socket.on('data', () => undefined);
    });
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    try {
      const handlers = await container(`http://127.0.0.1:${(silent.address() as { port: number }).port}`);
      const response = await invoke(handlers.list, 'GET');
      expectGeneric500(response);
      // It really waited for each attempt's timeout, and no longer than the documented worst case,
      // which stays below the functions' 10 s timeout.
      expect(response.ms).toBeGreaterThanOrEqual(CLIENT_LIMITS.maxAttempts * CLIENT_LIMITS.requestTimeout - 100);
      expect(response.ms).toBeLessThan(DYNAMODB_CALL_WORST_CASE_MS.silentServer + 2_500);
      expect(sockets.size).toBeGreaterThanOrEqual(CLIENT_LIMITS.maxAttempts);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 20_000);

  it('a request that would outlast the function: the generic 500 just before Lambda’s timeout, not a 504', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('data', () => undefined);
    });
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    try {
      const handlers = await container(`http://127.0.0.1:${(silent.address() as { port: number }).port}`);
      const functionTimeoutMs = 1_500; // shorter than the client's own worst case (about 6 s)
      const giveUpMs = functionTimeoutMs - GIVE_UP_BEFORE_TIMEOUT_MS;
      // A timer due when the handler should give up: on a loaded machine it fires late by as much as
      // the handler's own timer, so the response is measured against it rather than the wall clock.
      const started = performance.now();
      const giveUpTimerFired = new Promise<number>((done) =>
        setTimeout(() => done(performance.now() - started), giveUpMs),
      );
      const response = await invoke(handlers.create, 'POST', book, functionTimeoutMs);
      const answeredAt = performance.now() - started;
      const giveUpAt = await giveUpTimerFired;
      expectGeneric500(response);
      // Not before the give-up point (timers never fire early) ...
      expect(answeredAt).toBeGreaterThanOrEqual(giveUpMs - 50);
      // ... and right after it: the handler's deadline ended the request, not the client's timeouts
      // (about 6 s) nor a give-up margin too small to beat Lambda's timeout (middy's 5 ms default
      // would answer about 500 ms after this timer).
      expect(answeredAt - giveUpAt).toBeLessThan(250);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 20_000);
});
