import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDatabase, startLocalDatabase } from '../../local/dynoxide';
import { createLocalServer } from '../../local/server';
import { guardStorage, type StorageGuard } from '../../local/storage-guard';
import { ensureTables } from '../../local/tables';
import { userRecord } from '../../ops/user-records';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { createDocumentClient, createDynamoClient } from '../../shared/store/dynamodb-client';
import { BASIC_DEMO } from '../support/local-api';

/*
 * npm start's database on a disk that fills: a small tmpfs of its own (mounting one needs root, as
 * in CI's container). The guard asks for no reserve here, so the write reaches Dynoxide and fails
 * there, and the local gateway must turn that failure into the 503 and the line.
 */
const isRoot = process.getuid?.() === 0;
const mountPoint = mkdtempSync(join(tmpdir(), 'books-disk-'));
const dataDir = join(mountPoint, 'data');
const filler = join(mountPoint, 'filler');
const lines: string[] = [];
let database: LocalDatabase;
let guard: StorageGuard;
let server: ReturnType<typeof createLocalServer>;
let base: string;

/** Writes zeros until the file system says it is full. */
const fillDisk = () => {
  const fd = openSync(filler, 'w');
  const block = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
};

const create = (isbn: string) =>
  fetch(`${base}/api/books`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: BASIC_DEMO },
    body: JSON.stringify({ title: 'Full', author: 'Disk', isbn, publicationYear: 2001 }),
  });

describe.skipIf(!isRoot)('npm start on a disk that fills (needs root to mount a small tmpfs)', () => {
  beforeAll(async () => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mountPoint]);
    mkdirSync(dataDir);
    database = await startLocalDatabase({ dataDir });
    const names = { books: 'books', auth: 'auth' };
    await ensureTables(createDynamoClient(database.endpoint), names);
    await new DynamoUserStore(createDocumentClient(database.endpoint), names.auth).put({
      ...userRecord('demo', 'demo', 'books'),
      role: 'admin',
    });
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: database.endpoint,
      BOOKS_TABLE_NAME: names.books,
      AUTH_TABLE_NAME: names.auth,
      AUTH_REALM: 'books',
      NONCE_SECRET: 'test-secret',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    guard = guardStorage(dataDir, { reserveBytes: 0, log: (line) => lines.push(line) });
    server = createLocalServer({ storageGuard: () => guard });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    guard?.stop();
    server?.closeAllConnections();
    server?.close();
    await database?.stop();
    execFileSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it("answers the database's disk-full failure with 503 and Retry-After, says why once, and takes writes again when there is room", async () => {
    expect((await create('full-1')).status).toBe(201);
    fillDisk();
    const statuses: number[] = [];
    for (let attempt = 2; attempt <= 4; attempt++) {
      const refused = await create(`full-${attempt}`);
      statuses.push(refused.status);
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(((await refused.json()) as { message: string }).message).toContain('nothing was written');
    }
    expect(statuses).toEqual([503, 503, 503]);
    const full = `error: the disk of the data folder ${dataDir} is full: writes are refused until there is room.`;
    expect(lines.filter((line) => line === full)).toHaveLength(1);

    rmSync(filler);
    expect((await create('full-5')).status).toBe(201);
    expect(lines.at(-1)).toBe(`The data folder ${dataDir} has room again: writes are accepted.`);
  }, 120_000);

  it('with its reserve, refuses a write before the database sees it when the disk is nearly full', () => {
    fillDisk();
    const reserved = guardStorage(dataDir, { log: () => undefined });
    try {
      expect(reserved.refusal()?.reason).toContain('is full');
    } finally {
      reserved.stop();
      rmSync(filler);
    }
    expect(guardStorage(dataDir, { log: () => undefined }).refusal()).toBeUndefined();
  });
});
