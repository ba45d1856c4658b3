import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../tools/cli';
import {
  checkWrites,
  failures,
  formatSummary,
  type LoadSummary,
  leftBooksLine,
  listIds,
  parseLoadOptions,
  runLoad,
  setUpTarget,
} from '../../tools/load-steps';
import { startHostileServer } from '../support/hostile-server';
import { startLocalApi } from '../support/local-api';

/** `npm run load` as a user runs it: it starts npm start itself, loads it, and checks every write. */
const load = (args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(
      'npx',
      ['tsx', 'tools/load.ts', ...args],
      { env: { ...process.env, DYNAMODB_ENDPOINT: '' } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('npm run load', () => {
  it('runs a short mixed load against npm start: zero 5xx, zero lost writes, clean invariants', async () => {
    const { code, stdout, stderr } = await load(['--requests', '400', '--connections', '8', '--time-limit', '90']);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout).toMatch(/requests {6}400 in [\d.]+ s, \d+ req\/s/);
    expect(stdout).toMatch(/latency \(ms\) {2}p50 \d+, p90 \d+, p99 \d+/);
    expect(stdout).toMatch(/5xx {11}0; transport errors 0, timeouts 0/);
    expect(stdout).toMatch(/lost 0, phantom 0/);
    expect(stdout).toContain('invariants    clean');
    expect(stdout).toContain('OK: zero 5xx, zero lost writes');
  }, 150_000);

  it('explains itself, and refuses a target that is not on this machine', async () => {
    expect((await load(['--help'])).stdout).toContain('Usage: npm run load');
    const remote = await load(['--url', 'http://10.0.0.1:3000']);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('--url must be a loopback address');
  }, 60_000);
});

describe('npm run load, step by step', () => {
  it('parses options: defaults, limits, --help, and only loopback targets', () => {
    expect(parseLoadOptions([])).toEqual({
      requests: 6_000,
      connections: 16,
      timeLimitSeconds: 120,
      json: false,
    });
    expect(parseLoadOptions(['--url', 'http://[::1]:3000', '--requests', '10', '--json'])).toMatchObject({
      url: 'http://[::1]:3000',
      requests: 10,
      json: true,
    });
    expect(() => parseLoadOptions(['--requests', '100001'])).toThrow(UsageError);
    expect(() => parseLoadOptions(['--url', 'http://example.com'])).toThrow(/loopback/);
    expect(() => parseLoadOptions(['--url', 'not a url'])).toThrow(/must be a URL/);
    expect(parseLoadOptions(['--url', 'http://127.0.0.2:3000'])).toMatchObject({ url: 'http://127.0.0.2:3000' });
    expect(parseLoadOptions(['--help'])).toBeUndefined();
  });

  it('takes a user name alone: a password on the command line is refused, naming where it goes', () => {
    expect(() => parseLoadOptions(['--url', 'http://127.0.0.1:3000', '--user', 'ann:secret'])).toThrow(
      '--user takes a name alone; the password comes from LOAD_PASSWORD, stdin or a prompt',
    );
    expect(() => parseLoadOptions(['--user', 'ann'])).toThrow('--user goes with --url');
    expect(parseLoadOptions(['--url', 'http://127.0.0.1:3000', '--user', 'ann'])).toMatchObject({ user: 'ann' });
  });

  it('reads --user’s password from LOAD_PASSWORD, and says it leaves its books on a server it did not start', async () => {
    const options = parseLoadOptions(['--url', 'http://127.0.0.1:3000/', '--user', 'ann']);
    const saved = process.env.LOAD_PASSWORD;
    process.env.LOAD_PASSWORD = 'pass:word';
    try {
      const target = await setUpTarget(options as NonNullable<typeof options>);
      expect(target.authorization).toBe(`Basic ${Buffer.from('ann:pass:word').toString('base64')}`);
      const summary = { created: 30, deleted: 12 } as LoadSummary;
      expect(leftBooksLine(target, summary)).toBe(
        'Left 18 books this load created at http://127.0.0.1:3000 (titles "Load …", "Patched …" or "Replaced …"; ISBNs load-…).',
      );
      expect(leftBooksLine({ ...target, leavesBooks: undefined }, summary)).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.LOAD_PASSWORD;
      else process.env.LOAD_PASSWORD = saved;
    }
  });

  it('says in --help what it leaves behind and where the password comes from', async () => {
    const help = (await load(['--help'])).stdout;
    expect(help).toContain('leaves there the books it created and did not\ndelete');
    expect(help).toContain('LOAD_PASSWORD, else from stdin when it is piped, else from a prompt');
    expect(help).not.toContain('name:pass');
  }, 60_000);

  it('reads at most 200 MB of the list it checks: a larger declared answer is refused unread', async () => {
    const hostile = await startHostileServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '300000000' });
      response.write('[');
    });
    const target = { baseUrl: hostile.baseUrl, authorization: 'Basic x', stop: async () => undefined };
    await expect(listIds(target)).rejects.toThrow(
      /^answer too large: GET http:\/\/127\.0\.0\.1:\d+\/api\/books is over the 200000000 bytes/,
    );
    await hostile.close();
  });

  const clean: LoadSummary = {
    requests: 12,
    seconds: 1.5,
    requestsPerSecond: 8,
    latencyMs: { p50: 3, p90: 5, p99: 9, max: 11 },
    statuses: { 200: 8, 201: 2, 204: 2 },
    transportErrors: 0,
    timeouts: 0,
    fiveXx: 0,
    created: 2,
    deleted: 2,
    listedBefore: 0,
    listedAfter: 0,
    lostWrites: [],
    phantomBooks: [],
    invariantViolations: [],
    timedOut: false,
  };
  const limits = { requests: 12, timeLimitSeconds: 60 };

  it('fails a run for each thing that went wrong, and passes a clean one', () => {
    expect(failures(clean, limits)).toEqual([]);
    expect(
      failures(
        {
          ...clean,
          fiveXx: 1,
          timeouts: 2,
          lostWrites: [4, 7],
          phantomBooks: [9],
          invariantViolations: ['book 4 has no ISBN claim'],
          timedOut: true,
        },
        limits,
      ),
    ).toEqual([
      'stopped by the 60 s time limit before 12 requests',
      '1 responses were 5xx',
      '0 transport errors, 2 timeouts',
      'lost writes: books 4, 7 are missing',
      'phantom books: 9',
      'invariant violations: book 4 has no ISBN claim',
    ]);
  });

  it('prints the summary as aligned lines, or as JSON with counts', () => {
    expect(formatSummary(clean, false).split('\n')).toEqual([
      'requests      12 in 1.5 s, 8 req/s',
      'latency (ms)  p50 3, p90 5, p99 9, max 11',
      'statuses      {"200":8,"201":2,"204":2}',
      '5xx           0; transport errors 0, timeouts 0',
      'writes        2 created, 2 deleted; listed 0 (before 0); lost 0, phantom 0',
      'invariants    clean',
    ]);
    expect(JSON.parse(formatSummary({ ...clean, invariantViolations: undefined }, true))).toMatchObject({
      requests: 12,
      lostWrites: 0,
      phantomBooks: 0,
      invariantViolations: 'not checked (--url)',
    });
  });

  describe('against a server this test started', () => {
    let api: Awaited<ReturnType<typeof startLocalApi>>;
    beforeAll(async () => {
      api = await startLocalApi();
    }, 60_000);
    afterAll(() => api?.close());

    it('sets up the target, runs the load and checks every write and the invariants', async () => {
      const options = parseLoadOptions(['--url', `${api.baseUrl}/`, '--requests', '120', '--connections', '4']);
      const target = await setUpTarget(options as NonNullable<typeof options>);
      expect(target.baseUrl).toBe(api.baseUrl);
      target.database = { endpoint: api.tables.endpoint, booksTable: api.tables.names.books };
      const run = await runLoad(target, { requests: 120, connections: 4, timeLimitSeconds: 90 });
      expect(run.timedOut).toBe(false);
      expect(run.tally.created.size).toBeGreaterThan(0);
      const summary = await checkWrites(target, run);
      expect(summary).toMatchObject({ requests: 120, fiveXx: 0, lostWrites: [], phantomBooks: [] });
      expect(summary.invariantViolations).toEqual([]);
      expect(summary.listedAfter).toBe(summary.created - summary.deleted);
      expect(failures(summary, { requests: 120, timeLimitSeconds: 90 })).toEqual([]);
    }, 120_000);
  });
});
