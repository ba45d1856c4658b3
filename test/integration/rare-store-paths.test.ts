import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateSecret } from '../../ops/password-rules';
import { userRecord } from '../../ops/user-records';
import { NONCE_KEY_NAME } from '../../shared/auth/nonce';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { idempotencyRecordKey } from '../../shared/store/books/book-items';
import { apiClient, sendRequest } from '../support/api-client';
import { newBook } from '../support/books';
import { DEMO, startLocalApi } from '../support/local-api';
import { forwardTo } from '../support/throttling-proxy';
import { MACHINE_USER } from '../tools/permissions/must-record';

/**
 * The store paths no other flow takes, each through the local invoker (so `npm run test:permissions`
 * records them as the function's calls and checks them against its role): the authorizer creating
 * the nonce key, a machine credential's success, a delete releasing a live Idempotency-Key record,
 * and a keyed repeat whose cancellation comes back without the record (one consistent read).
 */

/** A proxy in front of DynamoDB that answers transactions' cancellations without the items they return. */
const startItemDroppingProxy = async (target: string) => {
  const upstream = new URL(target);
  let dropped = 0;
  const proxy = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    if (!String(incoming.headers['x-amz-target']).endsWith('.TransactWriteItems')) {
      forwardTo(upstream, incoming, Buffer.concat(chunks), outgoing);
      return;
    }
    const answer = await fetch(new URL(incoming.url ?? '/', upstream), {
      method: 'POST',
      headers: incoming.headers as Record<string, string>,
      body: Buffer.concat(chunks),
    });
    const body = (await answer.json()) as { CancellationReasons?: Array<{ Item?: unknown }> };
    for (const reason of body.CancellationReasons ?? []) {
      if (reason.Item) dropped++;
      delete reason.Item;
    }
    outgoing.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' });
    outgoing.end(JSON.stringify(body));
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  return {
    endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    dropped: () => dropped,
    close: () => new Promise<void>((done) => proxy.close(() => done())),
  };
};

let proxy: Awaited<ReturnType<typeof startItemDroppingProxy>>;
let api: Awaited<ReturnType<typeof startLocalApi>>;

beforeAll(async () => {
  proxy = await startItemDroppingProxy(inject('dynamoEndpoint'));
  // No NONCE_SECRET: the authorizer keeps its key in the auth table, as on Lambda.
  api = await startLocalApi({ env: { DYNAMODB_ENDPOINT: proxy.endpoint, NONCE_SECRET: '' } });
});

afterAll(async () => {
  await api?.close();
  await proxy?.close();
});

describe('paths only this file takes', () => {
  it('the authorizer creates the nonce key in the auth table on its first request, and signs with it', async () => {
    const { call } = apiClient(api.baseUrl);
    expect((await call('GET', '/api/books', undefined, 'digest')).status).toBe(200);
    const { Item } = await api.tables.documentClient.send(
      new GetCommand({ TableName: api.tables.names.auth, Key: { pk: `SECRET#${NONCE_KEY_NAME}` } }),
    );
    expect(Item?.value).toEqual(expect.any(String));
  });

  it('a machine credential (users add NAME --generate) is admitted', async () => {
    const secret = generateSecret();
    await new DynamoUserStore(api.tables.documentClient, api.tables.names.auth).put({
      ...userRecord(MACHINE_USER, secret, 'books'),
      role: 'reader',
      machine: true,
    });
    const authorization = `Basic ${Buffer.from(`${MACHINE_USER}:${secret}`).toString('base64')}`;
    expect((await sendRequest(api.baseUrl, 'GET', '/api/books', undefined, { authorization })).status).toBe(200);
  });

  it('a delete of a book created with an Idempotency-Key deletes its live key record too', async () => {
    const { call } = apiClient(api.baseUrl);
    const key = 'rare-paths-delete';
    const created = await call('POST', '/api/books', newBook('9780306406157'), 'basic', { 'idempotency-key': key });
    expect(created.status).toBe(201);
    expect((await call('DELETE', `/api/books/${created.json.id}`)).status).toBe(204);
    const { Item } = await api.tables.documentClient.send(
      new GetCommand({ TableName: api.tables.names.books, Key: idempotencyRecordKey(DEMO.username, key) }),
    );
    expect(Item).toBeUndefined();
  });

  it('a keyed repeat whose cancellation lacks the key record reads the record, and replays', async () => {
    const { call } = apiClient(api.baseUrl);
    const headers = { 'idempotency-key': 'rare-paths-replay' };
    const body = newBook('9781861972712');
    const first = await call('POST', '/api/books', body, 'basic', headers);
    expect(first.status).toBe(201);
    const before = proxy.dropped();
    const again = await call('POST', '/api/books', body, 'basic', headers);
    expect(proxy.dropped(), 'the cancellation came back without the record').toBeGreaterThan(before);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
  });
});
