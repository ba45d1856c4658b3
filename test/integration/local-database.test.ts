import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { CreateTableCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { startLocalDatabase } from '../../local/dynoxide';
import { createDynamoClient } from '../../shared/store/dynamodb-client';

/** Whether a TCP connection to host:port is accepted. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((done) => {
    const socket = new Socket();
    socket.setTimeout(2_000, () => {
      socket.destroy();
      done(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
    socket.connect(port, host);
  });

/** This machine's own addresses other than loopback: where anyone on the network would reach it. */
const externalAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((address) => address !== undefined && !address.internal && address.family === 'IPv4')
    .map((address) => address?.address as string);

describe('the local database (Dynoxide) as the project starts it', () => {
  const port = Number(new URL(inject('dynamoEndpoint')).port);

  it('accepts connections on 127.0.0.1', async () => {
    expect(await accepts('127.0.0.1', port)).toBe(true);
  });

  it.runIf(externalAddresses().length > 0)('refuses them on every other interface of this machine', async () => {
    for (const address of externalAddresses()) expect(await accepts(address, port), address).toBe(false);
  });
});

/*
 * DynamoDB's own limits, which the store's tests rely on the local database to enforce as AWS does
 * (Developer Guide, "Quotas": an item at most 400 KB, a partition key value at most 2,048 bytes, a
 * sort key value at most 1,024 bytes). An emulator that let more through would let a test pass that
 * fails on AWS; these fail first.
 */
describe('the local database enforces DynamoDB item and key size limits', () => {
  const client = createDynamoClient(inject('dynamoEndpoint'));
  const table = `limits-${randomUUID().slice(0, 8)}`;
  const put = (item: Record<string, { S: string }>) =>
    client.send(new PutItemCommand({ TableName: table, Item: item }));

  beforeAll(async () => {
    await client.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
  });

  // Names pk, sk and v count 2 + 2 + 1 bytes towards the item's size.
  const LIMIT = 400 * 1024;

  it('accepts an item of exactly 400 KB and refuses one byte more', async () => {
    const value = (total: number) => 'v'.repeat(total - 5 - 2);
    await expect(put({ pk: { S: 'a' }, sk: { S: 'b' }, v: { S: value(LIMIT) } })).resolves.toBeDefined();
    await expect(put({ pk: { S: 'a' }, sk: { S: 'c' }, v: { S: value(LIMIT + 1) } })).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/size/i),
    });
  });

  it('accepts a partition key of 2,048 bytes and refuses 2,049', async () => {
    await expect(put({ pk: { S: 'p'.repeat(2048) }, sk: { S: 'b' } })).resolves.toBeDefined();
    await expect(put({ pk: { S: 'p'.repeat(2049) }, sk: { S: 'b' } })).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });

  it('accepts a sort key of 1,024 bytes and refuses 1,025, counted in UTF-8 bytes', async () => {
    await expect(put({ pk: { S: 'a' }, sk: { S: 's'.repeat(1024) } })).resolves.toBeDefined();
    await expect(put({ pk: { S: 'a' }, sk: { S: 's'.repeat(1025) } })).rejects.toMatchObject({
      name: 'ValidationException',
    });
    // 342 three-byte characters: 1,026 bytes though 342 characters.
    await expect(put({ pk: { S: 'a' }, sk: { S: '€'.repeat(342) } })).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });
});

/*
 * Dynoxide keeps every stream record, never deleted, in one table it gives no index, and each
 * streamed write looks up the highest sequence number among them (local/stream-record-index.ts).
 * The queries are Dynoxide 1.2.1's own: with the index they search it, without it they scan.
 */
describe('a database the project starts without a data folder', () => {
  const NEXT_SEQUENCE =
    'SELECT COALESCE(MAX(CAST(sequence_number AS INTEGER)), 0) + 1 FROM _stream_records WHERE table_name = ?';
  const RECORDS_AFTER =
    'SELECT * FROM _stream_records WHERE table_name = ? AND shard_id = ? AND CAST(sequence_number AS INTEGER) > ? ORDER BY CAST(sequence_number AS INTEGER) LIMIT 100';

  it('indexes the stream records for the next sequence number and for reading a shard, and leaves no folder behind', async () => {
    const database = await startLocalDatabase();
    const sqlite = new DatabaseSync(database.dataFile, { readOnly: true });
    const plan = (query: string, ...values: (string | number)[]) =>
      sqlite
        .prepare(`EXPLAIN QUERY PLAN ${query}`)
        .all(...values)
        .map((row) => String(row.detail))
        .join('; ');
    try {
      expect(plan(NEXT_SEQUENCE, 'books')).toMatch(
        /^SEARCH _stream_records USING (COVERING )?INDEX book_library_stream_sequence/,
      );
      expect(plan(RECORDS_AFTER, 'books', 'shard-1', 0)).toMatch(
        /^SEARCH _stream_records USING INDEX book_library_stream_shard/,
      );
      expect(plan(RECORDS_AFTER, 'books', 'shard-1', 0)).not.toMatch(/TEMP B-TREE/);
    } finally {
      sqlite.close();
      await database.stop();
    }
    expect(existsSync(dirname(database.dataFile))).toBe(false);
  });
});
