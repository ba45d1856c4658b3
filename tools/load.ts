import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { checkBooksTable } from '../admin/invariants';
import { freePort } from '../local/dynamodb-local';
import { endpointFile } from '../local/endpoint-file';
import { DEFAULTS, ENV } from '../shared/config';
import { createDocumentClient } from '../shared/store/dynamodb-client';
import { integerOption, parseCommandLine, runTool, UsageError } from './cli';

const COMMAND = 'npm run load --';

const HELP = `Usage: npm run load -- [options]

Load test of the Book Library API with authentication on: mixed reads and writes (create, read,
patch, filtered list, replace, delete) from concurrent connections, bounded in count and time.
Prints requests/s and latency percentiles, then checks that no write was lost: every book created
and not deleted is listed, and nothing else appeared. Exits 1 on any 5xx, transport error or lost write.

By default it starts \`npm start\` itself (fresh data directory, free port, its own user) and stops it
afterwards; with --url it targets a server you started (loopback addresses only).

Options:
  --url <url>            a running API's base URL, e.g. http://127.0.0.1:3000 (loopback only)
  --user <name:pass>     credentials for --url (default demo:demo)
  --requests <n>         requests to send (default 6000, at most 100000)
  --connections <n>      concurrent connections (default 16)
  --time-limit <s>       give up after this many seconds (default 120, at most 600)
  --json                 print the summary as JSON
  -h, --help             this text
`;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

interface Target {
  baseUrl: string;
  authorization: string;
  /** The DynamoDB endpoint behind it, when known (for the invariant check). */
  dynamoEndpoint?: string;
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
    dynamoEndpoint: readFileSync(endpointFile(dataDir), 'utf8').trim(),
    stop,
  };
};

const listIds = async (target: Target): Promise<Set<number>> => {
  const response = await fetch(`${target.baseUrl}/api/books`, { headers: { authorization: target.authorization } });
  if (response.status !== 200) throw new Error(`listing the books answered ${response.status}`);
  return new Set(((await response.json()) as { id: number }[]).map((book) => book.id));
};

const main = async () => {
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    options: {
      url: { type: 'string' },
      user: { type: 'string', default: 'demo:demo' },
      requests: { type: 'string' },
      connections: { type: 'string' },
      'time-limit': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!parsed) return;
  const { values } = parsed;
  const amount = integerOption('requests', values.requests, 6_000, { max: 100_000 });
  const connections = integerOption('connections', values.connections, 16, { max: 256 });
  const timeLimit = integerOption('time-limit', values['time-limit'], 120, { max: 600 });
  if (values.url) {
    if (!URL.canParse(values.url))
      throw new UsageError(`--url must be a URL such as http://127.0.0.1:3000, not ${values.url}`);
    const host = new URL(values.url).hostname;
    if (!LOOPBACK.has(host))
      throw new UsageError(`--url must be a loopback address (127.0.0.1, localhost, [::1]), not ${host}`);
  }

  const target: Target = values.url
    ? {
        baseUrl: values.url.replace(/\/+$/, ''),
        authorization: `Basic ${Buffer.from(values.user).toString('base64')}`,
        stop: async () => undefined,
      }
    : await startServer();
  // Ctrl-C must not leave the detached npm start (and its DynamoDB Local) running.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void target.stop().finally(() => process.exit(130)));
  }

  try {
    const before = await listIds(target);
    const run = randomBytes(4).toString('hex');
    let sequence = 0;
    const created = new Set<number>();
    const deleted = new Set<number>();
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const json = { 'content-type': 'application/json', authorization: target.authorization };
    const book = () => ({
      title: `Load ${run}`,
      author: `Author ${sequence % 50}`,
      isbn: `load-${run}-${++sequence}`,
      publicationYear: 1900 + (sequence % 120),
    });
    type Context = { id?: number; cycle?: number };
    const onBook = (status: number, _body: string, context: Context) => {
      count(status);
      if (status === 404) context.id = undefined;
    };
    // One cycle per connection: create, read it, patch it, a filtered list, replace it, and delete
    // every other book, so the table grows and shrinks at once.
    const requests: autocannon.Request[] = [
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
            created.add(context.id);
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
          if (status === 204 && context.id !== undefined) deleted.add(context.id);
        },
      },
    ];

    console.error(`Sending ${amount} requests over ${connections} connections to ${target.baseUrl} ...`);
    let instance: autocannon.Instance | undefined;
    const finished = new Promise<autocannon.Result>((resolve, reject) => {
      // The callback form returns the running instance, which the watchdog and the progress bar need.
      instance = autocannon({ url: target.baseUrl, connections, amount, requests, timeout: 30 }, (error, result) =>
        error ? reject(error) : resolve(result),
      );
    });
    let timedOut = false;
    const watchdog = setTimeout(() => {
      timedOut = true;
      instance?.stop();
    }, timeLimit * 1000);
    if (instance) autocannon.track(instance, { renderProgressBar: process.stderr.isTTY, renderResultsTable: false });
    const result = await finished;
    clearTimeout(watchdog);

    const after = await listIds(target);
    const expected = new Set([...before, ...created].filter((id) => !deleted.has(id)));
    const lost = [...expected].filter((id) => !after.has(id));
    const phantom = [...after].filter((id) => !expected.has(id));
    const fiveXx = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
    const report = target.dynamoEndpoint
      ? await checkBooksTable(
          createDocumentClient(target.dynamoEndpoint),
          process.env[ENV.booksTableName] ?? DEFAULTS.tableNames.books,
        )
      : undefined;

    const summary = {
      requests: result.requests.total,
      seconds: Number((result.duration ?? 0).toFixed(1)),
      requestsPerSecond: Math.round(result.requests.average),
      latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
      statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
      transportErrors: result.errors,
      timeouts: result.timeouts,
      fiveXx,
      created: created.size,
      deleted: deleted.size,
      listedAfter: after.size,
      lostWrites: lost.length,
      phantomBooks: phantom.length,
      invariantViolations: report?.violations.length ?? 'not checked (--url)',
    };
    if (values.json) console.log(JSON.stringify(summary, null, 2));
    else {
      console.log(`requests      ${summary.requests} in ${summary.seconds} s, ${summary.requestsPerSecond} req/s`);
      console.log(
        `latency (ms)  p50 ${summary.latencyMs.p50}, p90 ${summary.latencyMs.p90}, p99 ${summary.latencyMs.p99}, max ${summary.latencyMs.max}`,
      );
      console.log(`statuses      ${JSON.stringify(summary.statuses)}`);
      console.log(`5xx           ${fiveXx}; transport errors ${result.errors}, timeouts ${result.timeouts}`);
      console.log(
        `writes        ${created.size} created, ${deleted.size} deleted; listed ${after.size} (before ${before.size}); lost ${lost.length}, phantom ${phantom.length}`,
      );
      console.log(`invariants    ${summary.invariantViolations === 0 ? 'clean' : summary.invariantViolations}`);
    }
    const failures = [
      timedOut && `stopped by the ${timeLimit} s time limit before ${amount} requests`,
      fiveXx > 0 && `${fiveXx} responses were 5xx`,
      result.errors + result.timeouts > 0 && `${result.errors} transport errors, ${result.timeouts} timeouts`,
      lost.length > 0 && `lost writes: books ${lost.slice(0, 10).join(', ')} are missing`,
      phantom.length > 0 && `phantom books: ${phantom.slice(0, 10).join(', ')}`,
      report &&
        report.violations.length > 0 &&
        `invariant violations: ${report.violations.map((v) => v.message).join('; ')}`,
    ].filter(Boolean);
    for (const failure of failures) console.error(`FAIL: ${failure}`);
    if (failures.length > 0) process.exitCode = 1;
    else console.log('OK: zero 5xx, zero lost writes');
  } finally {
    await target.stop();
  }
};

runTool(COMMAND, main);
