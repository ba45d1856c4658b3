import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { endpointFile } from '../local/endpoint-file';
import { freePort } from '../local/ports';
import { checkBooksTable } from '../ops/invariants';
import { DEFAULTS, ENV } from '../shared/config';
import { createDocumentClient } from '../shared/store/dynamodb-client';
import { integerOption, parseCommandLine, UsageError } from './cli';
import { readToolPassword } from './prompt';
import { isLoopback, readBounded, WHOLE_LIST_LIMIT_BYTES } from './untrusted-server';

/** The steps of `npm run load` (tools/load.ts): parse options, set up the target, run, check, report. */

export const COMMAND = 'npm run load --';

/** Where \`--user\`'s password comes from first (then piped stdin, then a prompt). */
export const PASSWORD_VARIABLE = 'LOAD_PASSWORD';

const HELP = `Usage: npm run load -- [options]

Load test of the Book Library API with authentication on: mixed reads and writes (create, read,
patch, filtered list, replace, delete) from concurrent connections, bounded in count and time.
Prints requests/s and latency percentiles, then checks that no write was lost: every book created
and not deleted is listed, and nothing else appeared. Exits 1 on any 5xx, transport error or lost write.

By default it starts \`npm start\` itself (fresh data directory, free port, its own user) and stops it
afterwards, removing its data. With --url it targets a server you started (loopback addresses only: it
sends a password and its load to nothing else) and leaves there the books it created and did not
delete (title "Load <run>", ISBN load-<run>-<n>); it says how many at the end. It reads at most
200 MB (Lambda's cap) of the list it checks.

Options:
  --url <url>            a running API's base URL, e.g. http://127.0.0.1:3000 (loopback only)
  --user <name>          the user for --url (default demo, password demo); the password comes from
                         ${PASSWORD_VARIABLE}, else from stdin when it is piped, else from a prompt
  --requests <n>         requests to send (default 6000, at most 100000)
  --connections <n>      concurrent connections (default 16)
  --time-limit <s>       give up after this many seconds (default 120, at most 600)
  --json                 print the summary as JSON
  -h, --help             this text
`;

export interface LoadOptions {
  /** A running API's base URL; without it the tool starts `npm start` itself. */
  url?: string;
  /** The user for `url`; undefined means demo with password demo. */
  user?: string;
  requests: number;
  connections: number;
  timeLimitSeconds: number;
  json: boolean;
}

/** Reads the command line; undefined when it asked for `--help` (printed). Throws a UsageError. */
export const parseLoadOptions = (args: string[]): LoadOptions | undefined => {
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    args,
    options: {
      url: { type: 'string' },
      user: { type: 'string' },
      requests: { type: 'string' },
      connections: { type: 'string' },
      'time-limit': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!parsed) return undefined;
  const { values } = parsed;
  if (values.url) {
    if (!URL.canParse(values.url))
      throw new UsageError(`--url must be a URL such as http://127.0.0.1:3000, not ${values.url}`);
    const host = new URL(values.url).hostname;
    if (!isLoopback(host))
      throw new UsageError(`--url must be a loopback address (127.0.0.1, localhost, [::1]), not ${host}`);
  }
  if (values.user?.includes(':'))
    throw new UsageError(`--user takes a name alone; the password comes from ${PASSWORD_VARIABLE}, stdin or a prompt`);
  if (values.user !== undefined && !values.url) throw new UsageError('--user goes with --url');
  return {
    ...(values.url && { url: values.url }),
    ...(values.user !== undefined && { user: values.user }),
    requests: integerOption('requests', values.requests, 6_000, { max: 100_000 }),
    connections: integerOption('connections', values.connections, 16, { max: 256 }),
    timeLimitSeconds: integerOption('time-limit', values['time-limit'], 120, { max: 600 }),
    json: values.json,
  };
};

export interface Target {
  baseUrl: string;
  authorization: string;
  /** True for a server this tool did not start: the books it created stay there. */
  leavesBooks?: boolean;
  /** The DynamoDB endpoint and books table behind it, when known (for the invariant check). */
  database?: { endpoint: string; booksTable: string };
  stop: () => Promise<void>;
}

/** Starts `npm start` on a free port with a fresh data directory and a user of its own. */
const startServer = async (): Promise<Target> => {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'books-load-'));
  const password = randomBytes(12).toString('hex');
  const child: ChildProcess = spawn('npm', ['start'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: '',
      LOCAL_USERS: `load:${password}`,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-(child.pid as number), 'SIGTERM');
      await Promise.race([exited, new Promise((done) => setTimeout(done, 15_000))]);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  console.error(`Starting npm start on port ${port} ...`);
  const deadline = Date.now() + 90_000;
  while (!output.includes('listening on')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`npm start did not come up:\n${output}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    authorization: `Basic ${Buffer.from(`load:${password}`).toString('base64')}`,
    database: {
      endpoint: readFileSync(endpointFile(dataDir), 'utf8').trim(),
      booksTable: process.env[ENV.booksTableName] ?? DEFAULTS.tableNames.books,
    },
    stop,
  };
};

/** The server under load: the one at `--url`, or `npm start` started here (stopped by `stop()`). */
export const setUpTarget = async (options: LoadOptions): Promise<Target> => {
  if (!options.url) return startServer();
  const username = options.user ?? 'demo';
  const password =
    options.user === undefined ? 'demo' : await readToolPassword(process.env[PASSWORD_VARIABLE], username);
  return {
    baseUrl: options.url.replace(/\/+$/, ''),
    authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
    leavesBooks: true,
    stop: async () => undefined,
  };
};

/** The closing line on the books a load leaves behind, when it targeted someone else's server. */
export const leftBooksLine = (target: Target, summary: LoadSummary): string | undefined =>
  target.leavesBooks
    ? `Left ${summary.created - summary.deleted} books this load created at ${target.baseUrl} (titles "Load …", "Patched …" or "Replaced …"; ISBNs load-…).`
    : undefined;

/** Every book id the API lists. */
export const listIds = async (target: Target): Promise<Set<number>> => {
  const url = `${target.baseUrl}/api/books`;
  const response = await fetch(url, { headers: { authorization: target.authorization }, redirect: 'manual' });
  if (response.status !== 200) throw new Error(`listing the books answered ${response.status}`);
  const text = await readBounded(response, WHOLE_LIST_LIMIT_BYTES, `GET ${url}`);
  return new Set((JSON.parse(text) as { id: number }[]).map((book) => book.id));
};

/** What the load saw: each status's count, and the books it created and deleted. */
export interface Tally {
  statuses: Map<number, number>;
  created: Set<number>;
  deleted: Set<number>;
}

type Context = { id?: number; cycle?: number };

/**
 * One cycle per connection: create, read it, patch it, a filtered list, replace it, and delete
 * every other book, so the table grows and shrinks at once. Responses are counted in `tally`.
 */
export const mixedCycle = (authorization: string, tally: Tally): autocannon.Request[] => {
  const run = randomBytes(4).toString('hex');
  let sequence = 0;
  const count = (status: number) => tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
  const json = { 'content-type': 'application/json', authorization };
  const book = () => ({
    title: `Load ${run}`,
    author: `Author ${sequence % 50}`,
    isbn: `load-${run}-${++sequence}`,
    publicationYear: 1900 + (sequence % 120),
  });
  const onBook = (status: number, _body: string, context: Context) => {
    count(status);
    if (status === 404) context.id = undefined;
  };
  return [
    {
      method: 'POST',
      path: '/api/books',
      headers: json,
      setupRequest: (request) => ({ ...request, body: JSON.stringify(book()) }),
      onResponse: (status, body, context: Context) => {
        count(status);
        if (status === 201) {
          context.id = (JSON.parse(body) as { id: number }).id;
          context.cycle = sequence;
          tally.created.add(context.id);
        }
      },
    },
    {
      method: 'GET',
      setupRequest: (request, context: Context) => ({ ...request, path: `/api/books/${context.id ?? 0}` }),
      headers: json,
      onResponse: onBook,
    },
    {
      method: 'PATCH',
      headers: json,
      setupRequest: (request, context: Context) => ({
        ...request,
        path: `/api/books/${context.id ?? 0}`,
        body: JSON.stringify({ title: `Patched ${run}` }),
      }),
      onResponse: onBook,
    },
    {
      method: 'GET',
      headers: json,
      setupRequest: (request) => ({
        ...request,
        path: `/api/books?author=author%20${sequence % 50}&year=${1900 + (sequence % 120)}`,
      }),
      onResponse: (status) => count(status),
    },
    {
      method: 'PUT',
      headers: json,
      setupRequest: (request, context: Context) => ({
        ...request,
        path: `/api/books/${context.id ?? 0}`,
        body: JSON.stringify({ ...book(), title: `Replaced ${run}` }),
      }),
      onResponse: onBook,
    },
    {
      method: 'DELETE',
      headers: json,
      setupRequest: (request, context: Context) =>
        // Falsy: keep this book and start the next cycle.
        context.id !== undefined && (context.cycle ?? 0) % 2 === 0
          ? { ...request, path: `/api/books/${context.id}` }
          : (undefined as unknown as autocannon.Request),
      onResponse: (status, _body, context: Context) => {
        count(status);
        if (status === 204 && context.id !== undefined) tally.deleted.add(context.id);
      },
    },
  ];
};

export interface LoadRun {
  /** The ids listed before the load. */
  before: Set<number>;
  tally: Tally;
  result: autocannon.Result;
  /** The time limit stopped it before all requests were sent. */
  timedOut: boolean;
}

/** Sends the mixed load (progress bar on a terminal), stopped by the time limit at the latest. */
export const runLoad = async (
  target: Target,
  options: Pick<LoadOptions, 'requests' | 'connections' | 'timeLimitSeconds'>,
): Promise<LoadRun> => {
  const before = await listIds(target);
  const tally: Tally = { statuses: new Map(), created: new Set(), deleted: new Set() };
  const requests = mixedCycle(target.authorization, tally);
  console.error(
    `Sending ${options.requests} requests over ${options.connections} connections to ${target.baseUrl} ...`,
  );
  let instance: autocannon.Instance | undefined;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    // The callback form returns the running instance, which the watchdog and the progress bar need.
    instance = autocannon(
      { url: target.baseUrl, connections: options.connections, amount: options.requests, requests, timeout: 30 },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
  let timedOut = false;
  const watchdog = setTimeout(() => {
    timedOut = true;
    instance?.stop();
  }, options.timeLimitSeconds * 1000);
  if (instance) autocannon.track(instance, { renderProgressBar: process.stderr.isTTY, renderResultsTable: false });
  try {
    return { before, tally, result: await finished, timedOut };
  } finally {
    clearTimeout(watchdog);
  }
};

export interface LoadSummary {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  statuses: Record<string, number>;
  transportErrors: number;
  timeouts: number;
  fiveXx: number;
  created: number;
  deleted: number;
  listedBefore: number;
  listedAfter: number;
  lostWrites: number[];
  phantomBooks: number[];
  /** The checker's findings, or undefined when the database is not known (--url). */
  invariantViolations: string[] | undefined;
  timedOut: boolean;
}

/** After the load: what is listed against what was written, and the table's invariants. */
export const checkWrites = async (target: Target, run: LoadRun): Promise<LoadSummary> => {
  const { before, tally, result } = run;
  const after = await listIds(target);
  const expected = new Set([...before, ...tally.created].filter((id) => !tally.deleted.has(id)));
  const report = target.database
    ? await checkBooksTable(createDocumentClient(target.database.endpoint), target.database.booksTable)
    : undefined;
  return {
    requests: result.requests.total,
    seconds: Number((result.duration ?? 0).toFixed(1)),
    requestsPerSecond: Math.round(result.requests.average),
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    statuses: Object.fromEntries([...tally.statuses].sort(([a], [b]) => a - b)),
    transportErrors: result.errors,
    timeouts: result.timeouts,
    fiveXx: [...tally.statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0),
    created: tally.created.size,
    deleted: tally.deleted.size,
    listedBefore: before.size,
    listedAfter: after.size,
    lostWrites: [...expected].filter((id) => !after.has(id)),
    phantomBooks: [...after].filter((id) => !expected.has(id)),
    invariantViolations: report?.violations.map((violation) => violation.message),
    timedOut: run.timedOut,
  };
};

/** Why the run failed, one line per reason; empty when it passed. */
export const failures = (summary: LoadSummary, options: Pick<LoadOptions, 'requests' | 'timeLimitSeconds'>) =>
  [
    summary.timedOut && `stopped by the ${options.timeLimitSeconds} s time limit before ${options.requests} requests`,
    summary.fiveXx > 0 && `${summary.fiveXx} responses were 5xx`,
    summary.transportErrors + summary.timeouts > 0 &&
      `${summary.transportErrors} transport errors, ${summary.timeouts} timeouts`,
    summary.lostWrites.length > 0 && `lost writes: books ${summary.lostWrites.slice(0, 10).join(', ')} are missing`,
    summary.phantomBooks.length > 0 && `phantom books: ${summary.phantomBooks.slice(0, 10).join(', ')}`,
    summary.invariantViolations &&
      summary.invariantViolations.length > 0 &&
      `invariant violations: ${summary.invariantViolations.join('; ')}`,
  ].filter((failure): failure is string => typeof failure === 'string');

/** The summary as the tool prints it: aligned lines, or JSON with `--json`. */
export const formatSummary = (summary: LoadSummary, json: boolean): string => {
  const violations = summary.invariantViolations?.length ?? 'not checked (--url)';
  if (json)
    return JSON.stringify(
      {
        ...summary,
        lostWrites: summary.lostWrites.length,
        phantomBooks: summary.phantomBooks.length,
        invariantViolations: violations,
        listedBefore: undefined,
        timedOut: undefined,
      },
      null,
      2,
    );
  const { latencyMs: latency } = summary;
  return [
    `requests      ${summary.requests} in ${summary.seconds} s, ${summary.requestsPerSecond} req/s`,
    `latency (ms)  p50 ${latency.p50}, p90 ${latency.p90}, p99 ${latency.p99}, max ${latency.max}`,
    `statuses      ${JSON.stringify(summary.statuses)}`,
    `5xx           ${summary.fiveXx}; transport errors ${summary.transportErrors}, timeouts ${summary.timeouts}`,
    `writes        ${summary.created} created, ${summary.deleted} deleted; listed ${summary.listedAfter} (before ${summary.listedBefore}); lost ${summary.lostWrites.length}, phantom ${summary.phantomBooks.length}`,
    `invariants    ${violations === 0 ? 'clean' : violations}`,
  ].join('\n');
};
