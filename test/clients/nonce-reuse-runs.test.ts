import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownTable } from '../../bench/markdown';
import { DEMO, startLocalApi } from '../support/local-api';
import { type Exchange, recordingProxy } from './recording-proxy';
import { requireTools } from './required-tools';
import { CLIENTS_DIR, PYTHON_BIN, preparePythonClients, ROOT } from './toolchains';

/**
 * Clients that keep the nonce of their first challenge and count its uses (RFC 7616 §3.4), each
 * sending a run of ten GETs through a recording proxy: the HTTP round trips per request, and no
 * `stale=true` 401 after the first challenge (docs/security.md, "Counted nonces").
 */
const run = promisify(execFile);
const RUN = 10;
const PATH = '/api/books?limit=1';

type Driver = (url: string) => Promise<number[]>;

const statusesOf = (stdout: string): number[] => {
  const answer = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { statuses?: number[]; error?: string };
  if (!answer.statuses) throw new Error(answer.error ?? `no answer: ${stdout}`);
  return answer.statuses;
};

const { username, password } = DEMO;
/** test/clients/python/digest_run.py with one of its clients, in the matrix's virtual environment. */
const pythonRun =
  (client: 'requests' | 'httpx' | 'aiohttp'): Driver =>
  async (url) =>
    statusesOf(
      (
        await run(join(PYTHON_BIN, 'python'), [
          join(CLIENTS_DIR, 'python/digest_run.py'),
          client,
          url,
          username,
          password,
          `${RUN}`,
        ])
      ).stdout,
    );
const DRIVERS: Record<string, Driver> = {
  // One curl run with ten URLs: curl 7.x asks each afresh (a 401 leg each), never with a spent nonce.
  'curl --digest, ten URLs in one run': async (url) => {
    const { stdout } = await run('curl', [
      '-s',
      '--digest',
      '-u',
      `${username}:${password}`,
      ...Array.from({ length: RUN }, () => ['-o', '/dev/null', '-w', '%{http_code}\\n', url]).flat(),
    ]);
    return stdout.trim().split('\n').map(Number);
  },
  'python-requests, one Session': pythonRun('requests'),
  'httpx, one Client': pythonRun('httpx'),
  'aiohttp, one ClientSession': pythonRun('aiohttp'),
  'digest-fetch, one DigestClient': async (url) =>
    statusesOf(
      (
        await run(
          process.execPath,
          [join(CLIENTS_DIR, 'node/digest-fetch-run.mjs'), url, username, password, `${RUN}`],
          {
            cwd: ROOT,
          },
        )
      ).stdout,
    ),
};

let api: Awaited<ReturnType<typeof startLocalApi>>;
const measured: { client: string; exchanges: Exchange[]; statuses: number[] }[] = [];

beforeAll(async () => {
  requireTools('npm run test:clients', ['curl', 'python3']);
  await preparePythonClients();
  api = await startLocalApi();
  for (const [client, driver] of Object.entries(DRIVERS)) {
    const proxy = await recordingProxy(api.baseUrl);
    try {
      const statuses = await driver(`${proxy.baseUrl}${PATH}`);
      measured.push({ client, exchanges: proxy.exchanges(), statuses });
    } finally {
      await proxy.close();
    }
  }
  console.log(
    markdownTable(
      ['client (ten GETs)', 'round trips', 'per request', '401 legs', 'stale 401s'],
      measured.map(({ client, exchanges }) => [
        client,
        String(exchanges.length),
        (exchanges.length / RUN).toFixed(1),
        String(exchanges.filter((exchange) => exchange.status === 401).length),
        String(exchanges.filter((exchange) => exchange.stale).length),
      ]),
      ['left', 'right', 'right', 'right', 'right'],
    ),
  );
}, 300_000);
afterAll(() => api?.close());

/** The clients that reuse their nonce; curl 7.x starts each URL of a run without credentials (its own 401 leg). */
const REUSING = [
  'python-requests, one Session',
  'httpx, one Client',
  'aiohttp, one ClientSession',
  'digest-fetch, one DigestClient',
];

describe('a run of ten requests', () => {
  for (const client of Object.keys(DRIVERS)) {
    it(`${client}: ten 200s, and no stale 401 after the first challenge`, () => {
      const { exchanges, statuses } = measured.find((m) => m.client === client) as (typeof measured)[number];
      expect(statuses).toStrictEqual(Array(RUN).fill(200));
      expect(exchanges.filter((exchange) => exchange.stale)).toStrictEqual([]);
      // Every 401 a challenge to a request that carried no credentials: none refused an answer.
      expect(exchanges.filter((exchange) => exchange.status === 401 && exchange.sent)).toStrictEqual([]);
    });
  }

  for (const client of REUSING) {
    it(`${client}: one challenge, then one round trip per request on the same nonce`, () => {
      const { exchanges } = measured.find((m) => m.client === client) as (typeof measured)[number];
      expect(exchanges.map((exchange) => exchange.status)).toStrictEqual([401, ...Array(RUN).fill(200)]);
      expect(new Set(exchanges.slice(1).map((exchange) => exchange.nonce)).size).toBe(1);
    });
  }
});
