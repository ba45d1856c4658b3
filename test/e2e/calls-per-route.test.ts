import type { TransactWriteItemsOutput, Update } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, expectTypeOf, inject, it } from 'vitest';
import { type DynamoMeter, startDynamoMeter } from '../../bench/dynamodb-meter';
import type { TableNames } from '../../local/tables';
import { createTestTables } from '../support/dynamodb';
import { BASIC_DEMO } from '../support/local-api';
import { booksTableCalls, createThrough, type ServerProcess, startServerProcess } from '../support/server-process';

/**
 * The books-table calls of one request per route, counted on the wire by a proxy in front of
 * Dynoxide (bench/dynamodb-meter.ts) against `npm start`, warm: what a route costs is what it
 * sends, not what a model of it says.
 */
let meter: DynamoMeter;
let server: ServerProcess;
let names: TableNames;

beforeAll(async () => {
  meter = await startDynamoMeter(inject('dynamoEndpoint'));
  names = (await createTestTables()).names;
  server = await startServerProcess(meter.endpoint, names);
  // Each function's first request adds its container's schema check (and a create its first id
  // block): one request per route first, so that what is counted is a warm request.
  const warm = await createThrough(server.baseUrl, 'warm-0');
  await send('GET', `/api/books/${warm}`);
  await send('PUT', `/api/books/${warm}`, book('warm-0'));
  await send('PATCH', `/api/books/${warm}`, { title: 'Warm' });
  await send('DELETE', `/api/books/${warm}`);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await meter?.close();
});

/** One request's status and the operations it sent to the books table. */
async function send(method: string, path: string, body?: unknown) {
  meter.take();
  const response = await fetch(new URL(path, server.baseUrl), {
    method,
    headers: { authorization: BASIC_DEMO, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  await response.arrayBuffer();
  return { status: response.status, calls: booksTableCalls(meter.take(), names).map((call) => call.operation) };
}

function book(isbn: string) {
  return { title: 'Counted', author: 'Wire', isbn, publicationYear: 2001 };
}

describe('books-table calls per request, counted on the wire', () => {
  it('creates with one transaction; reads, replaces and patches with one call; deletes with a read and a transaction', async () => {
    // A create is one transaction; now and then a container reserves its next block of ids besides.
    const creates = [];
    for (let i = 0; i < 10; i++) creates.push(await send('POST', '/api/books', book(`wire-1-${i}`)));
    expect(creates.map((create) => create.status)).toStrictEqual(Array(10).fill(201));
    expect(creates.map((create) => create.calls.filter((call) => call === 'TransactWriteItems').length)).toStrictEqual(
      Array(10).fill(1),
    );
    expect(creates.flatMap((create) => create.calls).length).toBeLessThanOrEqual(12);
    const id = await createThrough(server.baseUrl, 'wire-1');
    expect(await send('GET', `/api/books/${id}`)).toStrictEqual({ status: 200, calls: ['GetItem'] });
    expect(await send('PUT', `/api/books/${id}`, { ...book('wire-1'), title: 'Kept' })).toStrictEqual({
      status: 200,
      calls: ['UpdateItem'],
    });
    expect(await send('PATCH', `/api/books/${id}`, { title: 'Patched' })).toStrictEqual({
      status: 200,
      calls: ['UpdateItem'],
    });
    // A delete reads the book first: its ISBN names the claim the transaction releases.
    expect(await send('DELETE', `/api/books/${id}`)).toStrictEqual({
      status: 204,
      calls: ['GetItem', 'TransactWriteItems'],
    });
  });

  it('moves an ISBN with the update that finds it changed and then the transaction: two calls', async () => {
    // No fewer (docs/decisions/isbn-move-in-two-calls.md): the transaction must name the old claim, which
    // only the stored book knows, and answers with none of the items it wrote. tsc holds the second
    // half to the SDK's model, and fails here on the day transactions return items.
    expectTypeOf<Extract<keyof TransactWriteItemsOutput | keyof Update, 'Attributes' | 'ReturnValues'>>().toBeNever();
    const id = await createThrough(server.baseUrl, 'wire-2');
    // The first call learns the stored book (its condition fails and returns it), the second moves the claim.
    expect(await send('PUT', `/api/books/${id}`, book('wire-2-moved'))).toStrictEqual({
      status: 200,
      calls: ['UpdateItem', 'TransactWriteItems'],
    });
    expect(await send('PATCH', `/api/books/${id}`, { isbn: 'wire-2-again' })).toStrictEqual({
      status: 200,
      calls: ['UpdateItem', 'TransactWriteItems'],
    });
  });
});
