import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import type { Answer, Cell, Mode, Scheme } from './cell';
import { chromiumCell } from './chromium/chromium';
import { CLIENTS_DIR, JAVA_CLASSPATH, PYTHON_BIN, ROOT, TOOLS } from './toolchains';

const run = promisify(execFile);
const DRIVER_TIMEOUT_MS = 60_000;

/** A client of the matrix: what the table calls it, its pinned version, the cells it can do, its driver. */
export interface Client {
  name: string;
  version: () => Promise<string>;
  cells: readonly (readonly [Scheme, Mode])[];
  run: (cell: Cell) => Promise<Answer>;
}

/** Runs a driver with the cell on its command line and reads the one JSON line it prints. */
const driver =
  (command: string, args: string[] | ((cell: Cell) => string[]) = [], cwd?: string) =>
  async (cell: Cell): Promise<Answer> => {
    const argv = [cell.base, cell.path, cell.body, cell.scheme, cell.mode, cell.user, cell.password];
    const prefix = typeof args === 'function' ? args(cell) : args;
    try {
      const { stdout } = await run(command, [...prefix, ...argv], { cwd, timeout: DRIVER_TIMEOUT_MS });
      return JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
    } catch (error) {
      return { error: `driver failed: ${String((error as { stderr?: string }).stderr || error).slice(0, 300)}` };
    }
  };

const firstLine = (command: string, args: string[], pattern: RegExp) => async () => {
  const { stdout, stderr } = await run(command, args);
  return `${stdout}${stderr}`.match(pattern)?.[1] ?? 'unknown';
};
const fileMatch = (file: string, pattern: RegExp) => async () =>
  readFileSync(join(ROOT, file), 'utf8').match(pattern)?.[1] ?? 'unknown';
const npmVersion = (name: string) => async () =>
  JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version as string;
const pythonVersion = firstLine(join(PYTHON_BIN, 'python'), ['--version'], /Python (\S+)/);
const pinned = (name: string) => fileMatch('test/clients/python/requirements.txt', new RegExp(`^${name}==(\\S+)`, 'm'));
const javaVersion = firstLine('java', ['-version'], /version "([^"]+)"/);
const crate = (name: string) =>
  fileMatch('test/clients/rust/Cargo.lock', new RegExp(`name = "${name}"\\nversion = "([^"]+)"`));
const both = (a: () => Promise<string>, b: () => Promise<string>) => async () => `${await a()}, ${await b()}`;

const python = (file: string) => driver(join(PYTHON_BIN, 'python'), [join(CLIENTS_DIR, 'python', file)]);
const node = (file: string) => driver(process.execPath, [join(CLIENTS_DIR, 'node', file)], ROOT);
const java = (main: string, options: (cell: Cell) => string[] = () => []) =>
  driver('java', (cell) => ['-XX:TieredStopAtLevel=1', ...options(cell), '-cp', JAVA_CLASSPATH, main]);

const BASIC_FIRST = [['basic', 'preemptive'] as const];

/** The clients, each with every scheme it supports, challenge-driven and preemptive where it can. */
export const clientCatalogue = (browser: () => Browser): Client[] => [
  {
    name: 'curl (`-u`, `--digest`, `--anyauth`)',
    version: firstLine('curl', ['--version'], /^curl (\S+)/),
    cells: [...BASIC_FIRST, ['digest', 'challenge'], ['any', 'challenge']],
    run: driver('bash', [join(CLIENTS_DIR, 'cli/curl.sh')]),
  },
  {
    name: 'wget (`--user`, `--auth-no-challenge`)',
    version: firstLine('wget', ['--version'], /^GNU Wget (\S+)/),
    cells: [...BASIC_FIRST, ['any', 'challenge']],
    run: driver('bash', [join(CLIENTS_DIR, 'cli/wget.sh')]),
  },
  {
    name: 'HTTPie (`-A basic`, `-A digest`)',
    version: firstLine('http', ['--version'], /^(\S+)/),
    cells: [...BASIC_FIRST, ['digest', 'challenge']],
    run: driver('bash', [join(CLIENTS_DIR, 'cli/httpie.sh')]),
  },
  {
    name: 'Python urllib.request',
    version: pythonVersion,
    cells: [...BASIC_FIRST, ['basic', 'challenge'], ['digest', 'challenge']],
    run: python('urllib_client.py'),
  },
  {
    name: 'Python requests',
    version: pinned('requests'),
    cells: [...BASIC_FIRST, ['digest', 'challenge']],
    run: python('requests_client.py'),
  },
  {
    name: 'Python httpx',
    version: pinned('httpx'),
    cells: [...BASIC_FIRST, ['digest', 'challenge']],
    run: python('httpx_client.py'),
  },
  {
    name: 'Python aiohttp',
    version: pinned('aiohttp'),
    cells: [...BASIC_FIRST, ['digest', 'challenge']],
    run: python('aiohttp_client.py'),
  },
  {
    name: 'npm digest-fetch',
    version: npmVersion('digest-fetch'),
    cells: [...BASIC_FIRST, ['digest', 'challenge']],
    run: node('digest-fetch.mjs'),
  },
  {
    name: 'npm urllib',
    version: npmVersion('urllib'),
    cells: [...BASIC_FIRST, ['digest', 'challenge']],
    run: node('urllib.mjs'),
  },
  {
    name: 'npm axios',
    version: npmVersion('axios'),
    cells: BASIC_FIRST,
    run: node('axios.mjs'),
  },
  {
    name: 'Go net/http, icholy/digest',
    version: both(
      firstLine('go', ['version'], /go version go(\S+)/),
      fileMatch('test/clients/go/go.mod', /icholy\/digest (\S+)/),
    ),
    cells: [...BASIC_FIRST, ['digest', 'challenge']],
    run: driver(join(TOOLS, 'go-client')),
  },
  {
    name: 'Java HttpURLConnection + Authenticator',
    version: javaVersion,
    cells: [
      ['basic', 'challenge'],
      ['digest', 'challenge'],
    ],
    // The JDK prefers Digest when both are offered; http.auth.preference asks for the other.
    run: java('UrlConnectionClient', (cell) => [`-Dhttp.auth.preference=${cell.scheme}`]),
  },
  {
    name: 'Java Apache HttpClient 5',
    version: fileMatch('test/clients/java/pom.xml', /<artifactId>httpclient5<\/artifactId>\s*<version>([^<]+)/),
    cells: [...BASIC_FIRST, ['basic', 'challenge'], ['digest', 'challenge']],
    run: java('HttpClient5Client'),
  },
  {
    name: 'Rust reqwest, diqwest',
    version: both(crate('reqwest'), crate('diqwest')),
    cells: [...BASIC_FIRST, ['digest', 'challenge']],
    run: driver(join(TOOLS, 'rust-target/debug/rust-client')),
  },
  {
    name: 'Chromium (Playwright `httpCredentials`)',
    version: async () => browser().version(),
    // Challenge-driven only: Playwright's `send: 'always'` applies to its own API requests, never to
    // the browser's, so a page cannot send Basic unasked.
    cells: [['any', 'challenge']],
    run: (cell) => chromiumCell(browser(), cell),
  },
];
