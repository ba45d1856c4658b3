import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { apiUrlFile } from '../../local/endpoint-file';
import { freePort } from '../../local/ports';
import { createDynamoClient } from '../../shared/store/dynamodb-client';

/** Every `npm start` this file spawned, so none outlives a failed assertion. */
const spawned: ReturnType<typeof spawn>[] = [];

/**
 * A `java` that fails, first on the PATH: npm start needs Node alone, and any use of Java would
 * fail as it does on a machine without one (Java shares /usr/bin with node and npm here, so it
 * cannot simply be left off the PATH).
 */
const NO_JAVA = mkdtempSync(join(tmpdir(), 'no-java-'));
writeFileSync(join(NO_JAVA, 'java'), '#!/bin/sh\necho "java: not installed" >&2\nexit 127\n', { mode: 0o755 });
const PATH_WITHOUT_JAVA = [NO_JAVA, process.env.PATH].join(':');

/** `npm start` as a user runs it: its own Dynoxide on disk, a port from PORT, no Java on the PATH. */
const start = (env: Record<string, string>) => {
  const child = spawn('npm', ['start'], {
    env: { ...process.env, PATH: PATH_WITHOUT_JAVA, DYNAMODB_ENDPOINT: '', DYNAMODB_PORT: '', ...env },
    detached: true,
  });
  spawned.push(child);
  let output = '';
  child.stdout?.on('data', (c) => {
    output += c;
  });
  child.stderr?.on('data', (c) => {
    output += c;
  });
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  const waitFor = async (text: string, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!output.includes(text)) {
      if (Date.now() > deadline) throw new Error(`"${text}" not printed:\n${output}`);
      await new Promise((done) => setTimeout(done, 100));
    }
  };
  return { child, exited, waitFor, output: () => output };
};

/** Whether a process exists (signal 0 only checks). */
const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const DEMO = `Basic ${Buffer.from('demo:demo').toString('base64')}`;

/** SIGTERM to the whole process group, as a terminal's Ctrl-C or a process manager would. */
const stop = async (run: ReturnType<typeof start>) => {
  process.kill(-(run.child.pid as number), 'SIGTERM');
  // npm itself ends at once; the server prints this once it and its database have stopped.
  await run.waitFor('Stopped.', 15_000);
  return run.output();
};

/** Stops the process group of every spawned `npm start` still running: SIGTERM, then SIGKILL. */
const stopLeftovers = async () => {
  for (const child of spawned.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((done) => child.once('exit', done));
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-(child.pid as number), name);
      } catch {
        // the group is already gone
      }
    };
    signal('SIGTERM');
    if (
      !(await Promise.race([exited.then(() => true), new Promise((done) => setTimeout(() => done(false), 15_000))]))
    ) {
      signal('SIGKILL');
    }
  }
};

describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'books-data-'));
  afterEach(stopLeftovers, 30_000);
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(NO_JAVA, { recursive: true, force: true });
  });

  it('serves the API, stops cleanly on SIGTERM, and keeps the data for the next start', async () => {
    const port = await freePort();
    const env = { PORT: String(port), DATA_DIR: dataDir };
    const base = `http://127.0.0.1:${port}/api/books`;

    const first = start(env);
    await first.waitFor('listening on');
    await first.waitFor('users: demo:demo', 5_000); // the next line, which may arrive in a later chunk
    expect(first.output()).toContain('users: demo:demo');
    // Its first line of its own (after npm's): LOCAL_USERS are admins only because LOCAL_ROLES is not set.
    const own = first
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('>'));
    expect(own[0]).toMatch(/^Note: LOCAL_ROLES is not set, so every LOCAL_USERS user \(demo\) is an admin/);
    expect((await fetch(base)).status).toBe(401);
    const created = await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: DEMO },
      body: JSON.stringify({ title: 'Kept', author: 'A', isbn: 'restart-1', publicationYear: 2001 }),
    });
    expect(created.status).toBe(201);
    const book = (await created.json()) as { id: number };
    expect(await stop(first)).toContain('Stopped.');

    const second = start(env);
    await second.waitFor('listening on');
    const read = await fetch(`${base}/${book.id}`, { headers: { authorization: DEMO } });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(book);
    expect(await stop(second)).toContain('Stopped.');
  }, 120_000);

  it('takes its database down with it however it ends, and a start on a folder still served says so', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'books-stale-'));
    const env = { DATA_DIR: folder };
    const first = start({ ...env, PORT: String(await freePort()) });
    await first.waitFor('listening on');
    const pid = Number(readFileSync(join(folder, 'dynoxide.pid'), 'utf8'));
    const server = Number(readFileSync(join(folder, 'npm-start.pid'), 'utf8'));
    expect(isRunning(pid)).toBe(true);
    expect(execFileSync('ps', ['-o', 'args=', '-p', String(server)], { encoding: 'utf8' })).toMatch(/local\/main\.ts/);
    expect(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' }).trim()).toBe(String(server));

    // A second start on the same folder while the first runs: refused, telling to stop the first.
    const second = start({ ...env, PORT: String(await freePort()) });
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`another npm start (process ${server}) already serves ${folder}`);
    expect(second.output()).toContain(`Stop that npm start first (Ctrl-C in its terminal, or kill ${server})`);

    // The server process alone killed outright (no handler of its runs; Dynoxide, its child, gets
    // no signal): Dynoxide still stops, the watchdog's pipe from the server closed.
    process.kill(server, 'SIGKILL');
    const deadline = Date.now() + 20_000;
    while (isRunning(pid) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 200));
    expect(isRunning(pid)).toBe(false);

    // The next start clears what the killed one left behind, and serves.
    const third = start({ ...env, PORT: String(await freePort()) });
    await third.waitFor('listening on');
    expect(third.output()).toContain('Removed the address of a local database that no longer runs');
    expect(await stop(third)).toContain('Stopped.');
    rmSync(folder, { recursive: true, force: true });
  }, 180_000);

  it('stops, saying so, when its database stops under it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'books-lost-'));
    const port = await freePort();
    const run = start({ DATA_DIR: folder, PORT: String(port) });
    await run.waitFor('listening on');
    const pid = Number(readFileSync(join(folder, 'dynoxide.pid'), 'utf8'));
    process.kill(pid, 'SIGTERM'); // what an operator's `kill` does
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain(`the local database (Dynoxide, process ${pid}) stopped while the server ran`);
    expect(run.output()).toContain('the server stops too');
    // Nothing left answering 500s, and nothing left naming a database that is gone.
    await expect(fetch(`http://127.0.0.1:${port}/api/books`)).rejects.toThrow();
    expect(existsSync(join(folder, 'dynamodb-endpoint'))).toBe(false);
    rmSync(folder, { recursive: true, force: true });
  }, 120_000);

  it('refuses every write once its data folder is removed under it, saying so in one line naming the folder', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'books-removed-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/api/books`;
    const run = start({ DATA_DIR: folder, PORT: String(port) });
    await run.waitFor('listening on');
    let writes = 0;
    const write = (method: string, path = '', isbn = `removed-${++writes}`) =>
      fetch(`${base}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: DEMO },
        body:
          method === 'DELETE' ? undefined : JSON.stringify({ title: 'T', author: 'A', isbn, publicationYear: 2001 }),
      });
    const kept = await write('POST');
    expect(kept.status).toBe(201);
    const { id } = (await kept.json()) as { id: number };

    // A burst of creates, most waiting for a slot when the folder goes: none is acknowledged after
    // that, however long it waited (the guard is checked at the write and before the answer too).
    const burst = Array.from({ length: 160 }, () =>
      write('POST').then((answer) => ({ status: answer.status, at: performance.now() })),
    );
    await new Promise((done) => setTimeout(done, 50));
    rmSync(folder, { recursive: true, force: true });
    const removedAt = performance.now();
    const answers = await Promise.all(burst);
    expect(answers.filter((answer) => answer.status === 503).length).toBeGreaterThan(0); // it straddled the removal
    const acknowledgedLate = answers.filter((answer) => answer.status === 201 && answer.at - removedAt > 200);
    expect(acknowledgedLate).toEqual([]);

    const line = `the data folder ${folder} or its database file dynoxide.db was removed while npm start ran`;
    await run.waitFor(line, 5_000); // said at once, before any write asks
    for (const [method, path] of [
      ['POST', ''],
      ['PUT', `/${id}`],
      ['PATCH', `/${id}`],
      ['DELETE', `/${id}`],
      ['POST', ''],
    ]) {
      const refused = await write(method as string, path);
      expect(refused.status, method).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('60');
    }
    expect(run.output().split(line).length - 1).toBe(1);
    expect(await stop(run)).toContain('Stopped.');
  }, 120_000);

  it('refuses a DYNAMODB_PORT that another program holds, naming it, and uses nothing there', async () => {
    const blocker = createServer((socket) => socket.destroy());
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    const port = (blocker.address() as { port: number }).port;
    const folder = mkdtempSync(join(tmpdir(), 'books-busy-'));
    const run = start({ DATA_DIR: folder, PORT: String(await freePort()), DYNAMODB_PORT: String(port) });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain(`DYNAMODB_PORT ${port} is already in use by another program`);
    expect(run.output()).toContain(`DYNAMODB_ENDPOINT=http://127.0.0.1:${port}`);
    expect(run.output()).not.toContain('listening on');
    expect(existsSync(join(folder, 'dynamodb-endpoint'))).toBe(false);
    blocker.close();
    rmSync(folder, { recursive: true, force: true });
  }, 60_000);

  it('uses the DynamoDB that DYNAMODB_ENDPOINT names, and starts none of its own', async () => {
    const endpoint = inject('dynamoEndpoint'); // the run's database: any DynamoDB would do
    const folder = mkdtempSync(join(tmpdir(), 'books-endpoint-'));
    const suffix = randomUUID().slice(0, 8);
    const port = await freePort();
    const run = start({
      DATA_DIR: folder,
      PORT: String(port),
      DYNAMODB_ENDPOINT: endpoint,
      BOOKS_TABLE_NAME: `books-${suffix}`,
      AUTH_TABLE_NAME: `auth-${suffix}`,
    });
    await run.waitFor('listening on');
    expect(run.output()).toContain(`Using DynamoDB at ${endpoint}`);
    expect(run.output()).not.toContain('Starting the local database');
    const created = await fetch(`http://127.0.0.1:${port}/api/books`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: DEMO },
      body: JSON.stringify({ title: 'Elsewhere', author: 'A', isbn: `endpoint-${suffix}`, publicationYear: 2001 }),
    });
    expect(created.status).toBe(201);
    // The tables and the book are in that database: a scan of the books table finds the ISBN.
    const { Items } = await createDynamoClient(endpoint).send(new ScanCommand({ TableName: `books-${suffix}` }));
    expect(JSON.stringify(Items)).toContain(`endpoint-${suffix}`);
    expect(existsSync(join(folder, 'dynoxide.db'))).toBe(false);
    expect(existsSync(join(folder, 'dynoxide.pid'))).toBe(false);
    expect(await stop(run)).toContain('Stopped.');
    rmSync(folder, { recursive: true, force: true });
  }, 60_000);

  it('fails fast with a clear message when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    const port = (blocker.address() as { port: number }).port;
    const run = start({ PORT: String(port), DATA_DIR: dataDir });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain(`port ${port} is already in use`);
    blocker.close();
  }, 60_000);

  it('with PORT=0 prints the port it got, leaves it in DATA_DIR for the tools, and removes it when it stops', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'books-port0-'));
    const run = start({ PORT: '0', DATA_DIR: folder });
    await run.waitFor('API reference:');
    const listening = /listening on (http:\/\/127\.0\.0\.1:(\d+))\/api\/books/.exec(run.output());
    expect(Number(listening?.[2])).toBeGreaterThan(0);
    expect(run.output()).toContain(`API reference: ${listening?.[1]}/api/docs`);
    expect(readFileSync(apiUrlFile(folder), 'utf8').trim()).toBe(listening?.[1]);
    expect((await fetch(`${listening?.[1]}/api/books`)).status).toBe(401);
    await stop(run);
    expect(existsSync(apiUrlFile(folder))).toBe(false);
    rmSync(folder, { recursive: true, force: true });
  }, 120_000);
});
