import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { DEMO, startLocalApi } from '../support/local-api';
import { runTool } from '../support/tool-process';

/**
 * The issue's "done when", over HTTP against the local server with the default policy: a burst of
 * wrong passwords locks an account from the guesser's address (the right password is refused too),
 * while the real user at another address still gets in; another user is not affected, a name that
 * is nobody's is answered exactly alike, and the users tool unlocks.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
const OTHER = { username: 'bob', password: 'bob-secret' };

beforeAll(async () => {
  api = await startLocalApi();
  await new DynamoUserStore(api.tables.documentClient, api.tables.names.auth).put({
    ...userRecord(OTHER.username, OTHER.password, 'books'),
    role: 'admin',
  });
}, 60_000);
afterAll(() => api?.close());

const basic = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`,
});

/** What a client sees of an answer: status, header names, the challenge with its nonces blanked, body. */
const seen = async (headers: Record<string, string>) => {
  const response = await fetch(`${api.baseUrl}/api/books`, { headers });
  const challenge = (response.headers.get('www-authenticate') ?? '').replace(/nonce="[^"]+"/g, 'nonce="…"');
  const names = [...response.headers.keys()].filter((name) => name !== 'date').sort();
  return { status: response.status, names, challenge, body: await response.text() };
};

/** 150 wrong passwords, ten in flight at a time. */
const burst = async (username: string) => {
  const answers: Awaited<ReturnType<typeof seen>>[] = [];
  for (let i = 0; i < 150; i += 10) {
    answers.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => seen(basic(username, `guess-${i + j}`))))));
  }
  return answers;
};

/** The status of a request sent from another loopback address (Linux routes all of 127/8 to the host). */
const statusFrom = (localAddress: string, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    const sent = request(`${api.baseUrl}/api/books`, { headers, localAddress }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    sent.on('error', reject);
    sent.end();
  });

const users = (...args: string[]) =>
  runTool('users', [...args, '--endpoint', api.tables.endpoint, '--table', api.tables.names.auth]);

describe('online guessing against the local server, default policy', () => {
  let demoAnswers: Awaited<ReturnType<typeof seen>>[];

  it('150 wrong passwords in a burst: every one 401 with the challenge, then the right one refused alike', async () => {
    demoAnswers = await burst(DEMO.username);
    const first = demoAnswers[0];
    expect(first?.status).toBe(401);
    expect(first?.challenge).toContain('realm="books"');
    for (const answer of demoAnswers) expect(answer).toEqual(first);
    expect(await seen(basic(DEMO.username, DEMO.password))).toEqual(first);
  }, 120_000);

  it('the real user at another address still gets in; the guesser’s address stays locked', async () => {
    expect(await statusFrom('127.0.0.2', basic(DEMO.username, DEMO.password))).toBe(200);
    expect(await statusFrom('127.0.0.1', basic(DEMO.username, DEMO.password))).toBe(401);
  });

  it('another user is not affected', async () => {
    expect((await seen(basic(OTHER.username, OTHER.password))).status).toBe(200);
  });

  it('a name that is nobody’s gets the same answers as the locked user, throughout', async () => {
    const ghostAnswers = await burst('ghost');
    expect(ghostAnswers).toEqual(demoAnswers);
    expect(await seen(basic('ghost', DEMO.password))).toEqual(demoAnswers[0]);
  }, 120_000);

  it('`npm run users -- list` shows the locked names; `unlock` lets the right password in again', async () => {
    const listed = await users('list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^demo\tfrom 1 address until \d{4}-\d\d-\d\dT[\d:.]+Z$/m);
    // The name that is nobody's is not stored: only its key, and `unlock ghost` would find it.
    expect(listed.stdout).toMatch(/^ACCOUNT#[\w-]{43} \(no such user\)\tfrom 1 address until /m);
    expect(listed.stdout).not.toContain('ghost');
    expect(listed.stdout).not.toMatch(/^bob\tfrom/m);

    const unlocked = await users('unlock', DEMO.username);
    expect(unlocked).toMatchObject({ code: 0, stdout: expect.stringContaining('"demo" unlocked') });
    expect((await seen(basic(DEMO.username, DEMO.password))).status).toBe(200);
    expect((await users('list')).stdout).not.toMatch(/^demo\tfrom/m);
    expect((await users('unlock', 'ghost')).stdout).toContain('"ghost" unlocked');
    expect((await users('list')).stdout).toContain('No account is locked.');
    expect((await users('unlock', DEMO.username)).stdout).toContain('"demo" has no failures to forget');
  }, 120_000);
});
