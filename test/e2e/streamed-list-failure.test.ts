import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catalogueBook } from '../../bench/catalogue';
import { seedBooks } from '../../bench/seed';
import { createPatientDocumentClient } from '../support/dynamodb';
import { catchFunctionClients } from '../support/function-client';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/**
 * A whole list whose store fails after the 200 has gone out, through the local server as a client
 * sees it: the transfer itself fails (the chunked body never gets its terminating chunk), so no
 * client can take what arrived for the whole list. The failure is injected into the list
 * function's own DynamoDB client, the seam the fault tests use.
 */
const BOOKS = 3_000;

let api: Awaited<ReturnType<typeof startLocalApi>>;
/** The clients the authorizer and the list function made: the list's fails, the authorizer reads no books. */
let clients: DynamoDBClient[];

beforeAll(async () => {
  api = await startLocalApi();
  await seedBooks(createPatientDocumentClient(api.tables.endpoint), api.tables.names.books, 1, BOOKS, catalogueBook, {
    parallel: 4,
  });
  // The module the server's handlers make their clients with (loaded by file URL, as the server loads them).
  const { observeDynamoClients } = await import(pathToFileURL(resolve('shared/store/dynamodb-client.ts')).href);
  clients = await catchFunctionClients(observeDynamoClients, () =>
    fetch(`${api.baseUrl}/api/books?limit=1`, { headers: { authorization: BASIC_DEMO } }),
  );
}, 120_000);

afterEach(() => {
  for (const client of clients) client.middlewareStack.remove('failListReads');
});

afterAll(() => api.close());

/** Fails every Query that reads books (not the COUNT pass) after the first `healthy` of them. */
const failListReadsAfter = (healthy: number) => {
  let reads = 0;
  for (const client of clients) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        if (context.commandName === 'QueryCommand' && input.Select !== 'COUNT' && ++reads > healthy) {
          throw Object.assign(new Error('DynamoDB went away'), { name: 'InternalServerError' });
        }
        return next(args);
      },
      { step: 'initialize', name: 'failListReads' },
    );
  }
};

/** The status, what arrived, and the error the transfer ended with (undefined when it ended cleanly). */
const readList = async () => {
  const response = await fetch(`${api.baseUrl}/api/books`, { headers: { authorization: BASIC_DEMO } });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let body = '';
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      body += decoder.decode(read.value, { stream: true });
    }
    return { status: response.status, body, error: undefined };
  } catch (error) {
    return { status: response.status, body, error: error as Error };
  }
};

describe('GET /api/books when the store fails after the first byte', () => {
  it('fails the transfer: the client’s read errors, and what arrived is no JSON array', async () => {
    failListReadsAfter(32); // a Query per id range of 64 books: the first 2,048 books are read
    const { status, body, error } = await readList();
    expect(status).toBe(200);
    expect(error).toBeInstanceOf(Error); // undici: "terminated", the connection closed mid-body
    expect(body.startsWith('[{"id":1,')).toBe(true);
    expect(body).not.toContain(']');
    expect(() => JSON.parse(body)).toThrow();
  }, 60_000);

  it('answers the whole list again once the store is back', async () => {
    const { status, body, error } = await readList();
    expect(error).toBeUndefined();
    expect(status).toBe(200);
    expect(JSON.parse(body)).toHaveLength(BOOKS);
  }, 60_000);

  it('before the first byte, a failing store is still the contract’s 500', async () => {
    failListReadsAfter(0);
    const { status, body, error } = await readList();
    expect(error).toBeUndefined();
    expect(status).toBe(500);
    expect(JSON.parse(body)).toMatchObject({ status: 500, message: 'An unexpected error occurred' });
  }, 60_000);
});
