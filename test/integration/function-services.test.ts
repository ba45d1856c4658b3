import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningFunction } from '../../local/running-function';
import { catchFunctionClients } from '../support/function-client';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/**
 * `npm start` runs every function in one process, yet each keeps its own book service, as each has
 * its own containers on Lambda: its first request makes its own schema check (which its role must
 * allow), its later ones none. The functions' bundles know nothing of this (test/infra/bundling.test.ts).
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
let clients: DynamoDBClient[];
const calls: string[] = [];

const send = (method: string, path: string, body?: unknown) =>
  fetch(`${api.baseUrl}${path}`, {
    method,
    headers: { authorization: BASIC_DEMO, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

beforeAll(async () => {
  api = await startLocalApi();
  // The module the server's handlers make their clients with (loaded by file URL, as the server loads them).
  const { observeDynamoClients } = await import(pathToFileURL(resolve('shared/store/dynamodb-client.ts')).href);
  clients = await catchFunctionClients(observeDynamoClients, () =>
    send('POST', '/api/books', { title: 'Kept', author: 'Per function', isbn: 'kept-1', publicationYear: 2001 }),
  );
  for (const client of clients) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Key?: { pk?: unknown } };
        calls.push(`${runningFunction()} ${context.commandName} ${JSON.stringify(input.Key ?? null)}`);
        return next(args);
      },
      { step: 'initialize', name: 'recordFunctionCalls' },
    );
  }
}, 60_000);
afterAll(() => api.close());

/** A schema check reads the id-blocks item, where the table's schemaVersion is kept. */
const schemaChecks = (fn: string) => calls.filter((call) => call.startsWith(`${fn} `) && call.includes('"ID_BLOCKS"'));

describe('npm start, one book service per function', () => {
  it('makes a schema check on each function’s first request, and none on its next', async () => {
    for (const _ of [1, 2]) expect((await send('GET', '/api/books/1')).status).toBe(200);
    expect(schemaChecks('GetBook')).toHaveLength(1);
    expect((await send('PATCH', '/api/books/1', { title: 'Kept twice' })).status).toBe(200);
    expect(schemaChecks('PatchBook')).toHaveLength(1);
  });
});
