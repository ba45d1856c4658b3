import {
  type DynamoDBClient,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bufferedHandler } from '../../local/streaming-response';
import { checkBooksTable } from '../../ops/invariants';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { CLIENT_LIMITS, DYNAMODB_CALL_WORST_CASE_MS, observeDynamoClients } from '../../shared/store/dynamodb-client';
import { createTestTables } from '../support/dynamodb';
import { catchFunctionClients, documentClientOn } from '../support/function-client';
import { captureLogs } from '../support/log-capture';
import { contextFor, proxyEventFor } from '../support/proxy-event';

/**
 * DynamoDB failing in chosen ways, injected into the very client the handlers use (a middleware in
 * the SDK's deserialize step, so it fails each attempt inside the SDK's retry loop, as a real fault
 * would): the client gets the generic 500, in bounded time, with nothing written half-way and the
 * error logged exactly once with the request id.
 */
type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
const handlers: Record<string, Handler> = {};
let client: DynamoDBDocumentClient;
let tables: Awaited<ReturnType<typeof createTestTables>>;
const logs = captureLogs();

beforeAll(async () => {
  tables = await createTestTables();
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: tables.endpoint,
    BOOKS_TABLE_NAME: tables.names.books,
    POWERTOOLS_LOG_LEVEL: 'WARN',
    POWERTOOLS_METRICS_DISABLED: 'true', // EMF lines are not governed by the log level
  });
  const modules = {
    list: import('../../functions/books/list'),
    get: import('../../functions/books/get'),
    create: import('../../functions/books/create'),
    replace: import('../../functions/books/replace'),
    patch: import('../../functions/books/patch'),
    remove: import('../../functions/books/delete'),
  };
  for (const [name, module] of Object.entries(modules)) handlers[name] = bufferedHandler((await module).handler);
  // The handlers' client, made on their first call; its middleware stack is where faults go in.
  const [made, ...others] = await catchFunctionClients(observeDynamoClients, () => call('get', 'GET', '/api/books/1'));
  expect(others).toEqual([]);
  client = documentClientOn(made as DynamoDBClient);
});
afterEach(async () => {
  client.middlewareStack.remove('faultInjection');
  logs.clear();
  expect((await checkBooksTable(tables.documentClient, tables.names.books)).violations).toEqual([]);
});
afterAll(() => logs.restore());

/** Fails `times` attempts of the named low-level command (e.g. TransactWriteItemsCommand); counts attempts. */
const inject = (commandName: string, fault: () => Error, times = Number.POSITIVE_INFINITY) => {
  const counter = { attempts: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== commandName) return next(args);
      counter.attempts++;
      if (counter.attempts <= times) throw fault();
      return next(args);
    },
    { step: 'deserialize', name: 'faultInjection', override: true },
  );
  return counter;
};

const throttled = () =>
  new ThrottlingException({ message: 'Rate of requests exceeds the allowed throughput', $metadata: {} });
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
const connectionReset = () => Object.assign(new Error('socket hang up'), { name: 'Error', code: 'ECONNRESET' });

let isbn = 0;
const input = () => ({ title: 'Fault', author: 'Tolerant', isbn: `fault-${++isbn}`, publicationYear: 1999 });

const call = async (handler: string, method: string, target: string, body?: unknown) => {
  const event = proxyEventFor({
    method,
    target,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }) as APIGatewayProxyEvent;
  const context = contextFor(event);
  const started = performance.now();
  const result = await (handlers[handler] as Handler)(event, context);
  return {
    result,
    requestId: context.awsRequestId,
    ms: performance.now() - started,
    json: result.body ? JSON.parse(result.body) : undefined,
  };
};

const seed = async () => (await call('create', 'POST', '/api/books', input())).json;

/** The generic 500 exactly, logged once with the request id, nothing internal in the body. */
const expectGeneric500 = (response: Awaited<ReturnType<typeof call>>, internal: RegExp) => {
  expect(response.result.statusCode).toBe(500);
  expect(response.result.headers).toMatchObject({ 'Content-Type': 'application/json' });
  expect(response.json).toEqual({
    timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    status: 500,
    message: 'An unexpected error occurred',
  });
  expect(response.result.body).not.toMatch(internal);
  expect(response.result.body).not.toMatch(/at .+\.ts:\d+|Exception|stack/);
  const errors = logs.errors();
  expect(errors).toHaveLength(1);
  expect(JSON.stringify(errors[0])).toContain(response.requestId);
  expect(JSON.stringify(errors[0])).toMatch(internal); // the details are in the log, not the body
};

const count = async () => (await call('list', 'GET', '/api/books')).json.length as number;

describe('injected DynamoDB faults', () => {
  it('throttling on a read: the SDK retries up to its limit, then the generic 500', async () => {
    const book = await seed();
    const fault = inject('GetItemCommand', throttled);
    const response = await call('get', 'GET', `/api/books/${book.id}`);
    expectGeneric500(response, /Rate of requests exceeds/);
    expect(fault.attempts).toBe(CLIENT_LIMITS.maxAttempts);
    expect(response.ms).toBeLessThan(DYNAMODB_CALL_WORST_CASE_MS.throttled + 2_000);
  });

  it('a create whose transaction fails: 500, no book, no ISBN claim, the ISBN still free', async () => {
    const before = await count();
    const book = input();
    inject('TransactWriteItemsCommand', () => cancelled('None', 'ThrottlingError'));
    expectGeneric500(await call('create', 'POST', '/api/books', book), /ThrottlingError/);
    client.middlewareStack.remove('faultInjection');
    expect(await count()).toBe(before);
    expect((await call('create', 'POST', '/api/books', book)).result.statusCode).toBe(201);
  });

  it('a PUT moving an ISBN whose transaction keeps losing its connection: 500, the book and both claims unchanged', async () => {
    const book = await seed();
    const fault = inject('TransactWriteItemsCommand', connectionReset);
    expectGeneric500(
      await call('replace', 'PUT', `/api/books/${book.id}`, { ...input(), title: 'Moved' }),
      /socket hang up/,
    );
    expect(fault.attempts).toBe(CLIENT_LIMITS.maxAttempts);
    client.middlewareStack.remove('faultInjection');
    expect((await call('get', 'GET', `/api/books/${book.id}`)).json).toEqual(book);
    // The old ISBN is still held (checked by the invariant checker after each test, too).
    expect((await call('create', 'POST', '/api/books', { ...input(), isbn: book.isbn })).result.statusCode).toBe(409);
  });

  it('a PATCH whose one conditional write fails: 500 and the book unchanged', async () => {
    const book = await seed();
    inject('UpdateItemCommand', connectionReset);
    expectGeneric500(await call('patch', 'PATCH', `/api/books/${book.id}`, { title: 'Lost?' }), /socket hang up/);
    client.middlewareStack.remove('faultInjection');
    expect((await call('get', 'GET', `/api/books/${book.id}`)).json).toEqual(book);
  });

  it('a DELETE whose transaction fails: 500 and the book still there with its claim', async () => {
    const book = await seed();
    inject('TransactWriteItemsCommand', () => cancelled('None', 'ThrottlingError'));
    expectGeneric500(await call('remove', 'DELETE', `/api/books/${book.id}`), /ThrottlingError/);
    client.middlewareStack.remove('faultInjection');
    expect((await call('get', 'GET', `/api/books/${book.id}`)).json).toEqual(book);
  });

  it('the id block reservation failing: the create fails, nothing is written, the next container reserves anew', async () => {
    const before = await count();
    // A fresh store is a fresh container: its first create must reserve a block of ids.
    const store = new DynamoBookStore(client, process.env.BOOKS_TABLE_NAME as string);
    const { id: _, createdAt, updatedAt, ...fields } = await seed();
    const book = { ...fields, isbn: `reserve-${Date.now()}`, createdAt, updatedAt };
    inject('UpdateItemCommand', throttled);
    await expect(store.create(book)).rejects.toThrow(/Rate of requests exceeds/);
    client.middlewareStack.remove('faultInjection');
    expect(await count()).toBe(before + 1);
    const { book: created } = await store.create(book);
    expect(created.id).toBeGreaterThan(0);
    expect(await count()).toBe(before + 2);
  });
});

describe('conflicts that outlast the retries: 503 with Retry-After, nothing written, nothing logged as an error', () => {
  /** The contract's 503 exactly: the client may repeat the request after Retry-After. */
  const expectContended = (response: Awaited<ReturnType<typeof call>>) => {
    expect(response.result.statusCode).toBe(503);
    expect(response.result.headers).toMatchObject({ 'Content-Type': 'application/json', 'Retry-After': '1' });
    expect(response.json).toEqual({
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      status: 503,
      message: 'The book is being changed by other requests at this moment; nothing was written, try again',
    });
    expect(logs.errors()).toEqual([]);
  };

  it('a create: 503, no book, no ISBN taken (the same create then succeeds)', async () => {
    const before = await count();
    const book = input();
    inject('TransactWriteItemsCommand', () => cancelled('None', 'TransactionConflict'));
    expectContended(await call('create', 'POST', '/api/books', book));
    client.middlewareStack.remove('faultInjection');
    expect(await count()).toBe(before);
    expect((await call('create', 'POST', '/api/books', book)).result.statusCode).toBe(201);
  });

  it('a PATCH and a PUT keeping the ISBN: 503, the book unchanged', async () => {
    const book = await seed();
    inject('UpdateItemCommand', () => new TransactionConflictException({ message: 'conflict', $metadata: {} }));
    expectContended(await call('patch', 'PATCH', `/api/books/${book.id}`, { title: 'Contended' }));
    expectContended(await call('replace', 'PUT', `/api/books/${book.id}`, { ...input(), isbn: book.isbn }));
    client.middlewareStack.remove('faultInjection');
    expect((await call('get', 'GET', `/api/books/${book.id}`)).json).toEqual(book);
  });

  it('an ISBN move and a delete: 503, the book and its ISBN where they were', async () => {
    const book = await seed();
    inject('TransactWriteItemsCommand', () => cancelled('None', 'TransactionConflict', 'None'));
    expectContended(await call('replace', 'PUT', `/api/books/${book.id}`, input()));
    client.middlewareStack.remove('faultInjection');
    inject('TransactWriteItemsCommand', () => cancelled('TransactionConflict', 'None'));
    expectContended(await call('remove', 'DELETE', `/api/books/${book.id}`));
    client.middlewareStack.remove('faultInjection');
    expect((await call('get', 'GET', `/api/books/${book.id}`)).json).toEqual(book);
  });
});

describe('transaction conflicts are retried by the store, not answered with 500', () => {
  it('a create that meets another transaction once succeeds, consuming one id', async () => {
    const first = await seed();
    const fault = inject('TransactWriteItemsCommand', () => cancelled('None', 'TransactionConflict'), 1);
    const response = await call('create', 'POST', '/api/books', input());
    expect(response.result.statusCode).toBe(201);
    expect(fault.attempts).toBe(2);
    expect(response.json.id).toBe(first.id + 1);
    expect(logs.errors()).toEqual([]);
  });

  it('a PATCH whose write meets a transaction (TransactionConflictException) once succeeds', async () => {
    const book = await seed();
    inject('PutItemCommand', () => new TransactionConflictException({ message: 'conflict', $metadata: {} }), 1);
    const response = await call('patch', 'PATCH', `/api/books/${book.id}`, { title: 'Retried' });
    expect(response.result.statusCode).toBe(200);
    expect(response.json.title).toBe('Retried');
  });

  it('an ISBN move and a delete that meet a transaction once both succeed', async () => {
    const book = await seed();
    inject('TransactWriteItemsCommand', () => cancelled('None', 'TransactionConflict', 'None'), 1);
    const moved = await call('replace', 'PUT', `/api/books/${book.id}`, input());
    expect(moved.result.statusCode).toBe(200);
    client.middlewareStack.remove('faultInjection');
    inject('TransactWriteItemsCommand', () => cancelled('TransactionConflict', 'None'), 1);
    expect((await call('remove', 'DELETE', `/api/books/${book.id}`)).result.statusCode).toBe(204);
  });

  it('a conflict that never clears ends in 503 within a bounded time, logged once as a warning with the store’s words', async () => {
    const book = await seed();
    const fault = inject('TransactWriteItemsCommand', () => cancelled('TransactionConflict', 'None'));
    const response = await call('remove', 'DELETE', `/api/books/${book.id}`);
    expect(response.result.statusCode).toBe(503);
    expect(response.result.body).not.toMatch(/kept conflicting/);
    expect(fault.attempts).toBe(10);
    expect(response.ms).toBeLessThan(5_000);
    const warnings = logs.lines.filter((line) => line.level === 'WARN');
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain(response.requestId);
    expect(JSON.stringify(warnings[0])).toMatch(/kept conflicting during 10 attempts/);
  });
});
