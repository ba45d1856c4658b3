import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { FUNCTION_MEMORY_MB } from '../infra/constructs/route-function';
import { startLocalDatabase } from '../local/dynoxide';
import { lambdaContext } from '../local/gateway';
import { ensureTables } from '../local/tables';
import { ENV, toEnvironment } from '../shared/config';
import { createDocumentClient, createDynamoClient, PATIENT_CLIENT_LIMITS } from '../shared/store/dynamodb-client';
import { integerOption, parseCommandLine, UsageError } from '../tools/cli';
import { type BuiltFunction, buildAll, extraOverFloor, PROJECT_ROOT, savingsAgainstFloor } from './bundles';
import { type CapacityResults, renderCapacity } from './capacity';
import { type DynamoMeter, type MeteredCall, startDynamoMeter, summarize } from './dynamodb-meter';
import { authorizerEvent } from './events';
import { type ImportTimes, measureImportTimes, pairedRatio } from './import-time';
import { type Handler, invoke, loadBundle, measureLatency } from './latency';
import { type BenchResults, type RouteRow, renderReport, type SizeRow, withBenchBlock } from './report';
import type { ScalingRow } from './scaling';
import { BENCH_USER, digestAuthorization, type Scenario } from './scenarios';

/** The steps of `npm run bench` (bench/main.ts): parse options, build, measure, report. */

export const COMMAND = 'npm run bench --';

const HELP = `npm run bench [-- options]

Builds the floor bundle and every function exactly as the stack bundles them, then measures bundle
size, fresh-process import time, warm latency against Dynoxide next to the raw SDK calls,
DynamoDB round trips and consumed capacity, and list capacity at growing table sizes. Writes the
tables to bench/results.md and into docs/benchmarks.md. A --quick run writes them to
.bench/quick-results.md only (git-ignored): nothing git tracks changes.

Options:
  --quick          smoke run: 3 import rounds, 50 requests, tables of 200 and 1,000 books
  --runs N         import-time rounds (default 51; at least 9 for a real run)
  --requests N     warm requests per route (default 500)
  --sizes a,b,c    table sizes for the capacity scaling (default 1000,10000,100000)
  --out FILE       where to write the tables (default bench/results.md; .bench/quick-results.md with --quick)
  --no-docs        leave docs/benchmarks.md alone (always with --quick)
  --round-trips    only the DynamoDB round trips per request: prints their table, writes no file
  -h, --help       this text

Runs its own Dynoxide (local/dynoxide.ts). A full run takes about five minutes on two cores, a minute of it seeding 100,000 books.`;

export interface BenchOptions {
  quick: boolean;
  runs: number;
  requests: number;
  sizes: number[];
  out: string;
  /** Write the tables into docs/benchmarks.md too. */
  docs: boolean;
  /** Measure the round trips only (no import times, latency, scaling or capacity). */
  roundTripsOnly: boolean;
}

/** Reads the command line; undefined when it asked for `--help` (printed). Throws a UsageError. */
export const parseBenchOptions = (args: string[]): BenchOptions | undefined => {
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    args,
    options: {
      quick: { type: 'boolean', default: false },
      runs: { type: 'string' },
      requests: { type: 'string' },
      sizes: { type: 'string' },
      out: { type: 'string' },
      'no-docs': { type: 'boolean', default: false },
      'round-trips': { type: 'boolean', default: false },
    },
  });
  if (!parsed) return undefined;
  const { values } = parsed;
  const quick = values.quick;
  const sizes = (values.sizes ?? (quick ? '200,1000' : '1000,10000,100000'))
    .split(',')
    .map((s) => integerOption('sizes', s.trim(), 0));
  if (sizes.some((s, i) => i > 0 && s <= (sizes[i - 1] as number))) throw new UsageError('--sizes must grow');
  return {
    quick,
    runs: integerOption('runs', values.runs, quick ? 3 : 51),
    requests: integerOption('requests', values.requests, quick ? 50 : 500),
    sizes,
    out: values.out ?? (quick ? '.bench/quick-results.md' : 'bench/results.md'),
    docs: !values['no-docs'] && !quick,
    roundTripsOnly: values['round-trips'],
  };
};

/** Creates are metered over this many requests: the id-block reservation belongs to a block of them. */
const CREATES_METERED = 100;

export const log = (line: string) => process.stderr.write(`${line}\n`);

export interface BenchBundles {
  floor: BuiltFunction;
  /** Every function of the stack, built with its BUNDLING. */
  functions: BuiltFunction[];
}

/** Builds the floor and every function as the stack bundles it. */
export const buildBundles = async (outDir: string): Promise<BenchBundles> => {
  const [floor, ...functions] = (await buildAll(outDir)) as [BuiltFunction, ...BuiltFunction[]];
  return { floor, functions };
};

export interface BundleMeasures {
  floor: SizeRow;
  functions: SizeRow[];
}

/** Size and fresh-process import time of every bundle, as ratios to the floor's. */
export const measureBundles = (
  bundles: BenchBundles,
  runs: number,
  progress: (round: number) => void = () => undefined,
): BundleMeasures => {
  const { floor, functions } = bundles;
  const all = [floor, ...functions];
  const importMs = measureImportTimes([...new Set(all.map((b) => b.file))], runs, progress);
  const floorTimes = importMs.get(floor.file) as ImportTimes;
  const sizeRow = (b: BuiltFunction): SizeRow => {
    const times = importMs.get(b.file) as ImportTimes;
    return {
      name: b.name,
      bytes: b.bytes,
      importMs: times.cpuMs,
      importRatio: pairedRatio(times, floorTimes, (t) => t.cpuMs),
      extras: extraOverFloor(b, floor, 4),
      savings: savingsAgainstFloor(b, floor),
    };
  };
  return {
    floor: sizeRow(floor),
    functions: functions.map(sizeRow),
  };
};

export const BENCH_TABLES = {
  books: 'bench-books',
  auth: 'bench-auth',
  scale: 'bench-scale',
  capacity: 'bench-capacity',
} as const;

export interface BenchDatabase {
  /** Dynoxide's endpoint, for timed requests. */
  endpoint: string;
  /** The metering proxy in front of it, for counted requests. */
  meter: DynamoMeter;
  client: DynamoDBDocumentClient;
  stop: () => Promise<void>;
}

/**
 * Dynoxide with the bench's tables, the metering proxy in front of it, and the environment
 * the function bundles read, as a container would see it.
 */
export const setUpDatabase = async (): Promise<BenchDatabase> => {
  const database = await startLocalDatabase();
  let meter: DynamoMeter;
  try {
    meter = await startDynamoMeter(database.endpoint);
  } catch (error) {
    await database.stop();
    throw error;
  }
  const stop = async () => {
    await meter.close().catch((error) => log(`cleanup: ${error}`));
    await database.stop();
  };
  try {
    const tables = createDynamoClient(database.endpoint);
    await ensureTables(tables, { books: BENCH_TABLES.books, auth: BENCH_TABLES.auth });
    await ensureTables(tables, { books: BENCH_TABLES.scale, auth: `${BENCH_TABLES.scale}-auth` });
    await ensureTables(tables, { books: BENCH_TABLES.capacity, auth: `${BENCH_TABLES.capacity}-auth` });
  } catch (error) {
    await stop();
    throw error;
  }
  setFunctionEnvironment();
  // Patient, as every other seeder here: a bulk seed on a loaded machine may outlast the functions' 2 s limit.
  return {
    endpoint: database.endpoint,
    meter,
    client: createDocumentClient(database.endpoint, PATIENT_CLIENT_LIMITS),
    stop,
  };
};

/** What the bundles read from the environment, as the stack sets it (quiet logs and metrics). */
const setFunctionEnvironment = () => {
  Object.assign(
    process.env,
    toEnvironment({
      booksTableName: BENCH_TABLES.books,
      authTableName: BENCH_TABLES.auth,
      realm: BENCH_USER.realm,
      logLevel: 'CRITICAL',
      // EMF lines would flood the report; serialising a few counters is not what the latency measures.
      metricsDisabled: 'true',
      region: 'local',
    }),
  );
  delete process.env[ENV.nonceSecret]; // the authorizer loads its key from the table, as deployed
};

/** Makes a fresh instance of a function's bundle (its own SDK client) talking to `endpoint`. */
export type InstanceMaker = (fn: string, endpoint: string, tag: string) => Promise<Handler>;

export const instanceMaker =
  (functions: BuiltFunction[]): InstanceMaker =>
  async (fn, endpoint, tag) => {
    const file = functions.find((f) => f.name === fn)?.file;
    if (!file) throw new Error(`no bundle for ${fn}`);
    process.env[ENV.dynamodbEndpoint] = endpoint; // read by the bundle's client at its first request
    return loadBundle(file, `${tag}-${fn}`);
  };

/** The calls of a container's first request that its second did not repeat (one-time loading). */
export const oneTimeCalls = (first: MeteredCall[], warm: MeteredCall[]): MeteredCall[] => {
  const extra = [...first];
  for (const call of warm) {
    const same = extra.findIndex((e) => e.operation === call.operation && e.capacityUnits === call.capacityUnits);
    const index = same >= 0 ? same : extra.findIndex((e) => e.operation === call.operation);
    if (index >= 0) extra.splice(index, 1);
  }
  return extra;
};

export interface RouteMeasures {
  routes: RouteRow[];
  /** The authorizer's extra calls on a container's first request. */
  coldAuthorizer?: BenchResults['coldAuthorizer'];
}

/**
 * Each scenario through its function's bundle: its DynamoDB calls counted by the meter on a warm
 * instance, then its warm latency straight against DynamoDB next to the raw SDK calls.
 */
export const measureRoutes = async (
  scenarios: Scenario[],
  instance: InstanceMaker,
  database: Pick<BenchDatabase, 'endpoint' | 'meter'>,
  requests: number,
  roundTripsOnly = false,
): Promise<RouteMeasures> => {
  const { meter } = database;
  const routes: RouteRow[] = [];
  let coldAuthorizer: BenchResults['coldAuthorizer'];
  const warmup = Math.max(10, Math.round(requests / 10));
  for (const [n, scenario] of scenarios.entries()) {
    log(`[${n + 1}/${scenarios.length}] ${scenario.function} ${scenario.label}`);
    const creates = scenario.function === 'CreateBook' ? CREATES_METERED : 1;
    // A second identical create or delete would be a 409 or 404: their first requests are the measure,
    // on an instance warmed by one more of them (its schema check is once per container).
    const repeatable = scenario.function !== 'CreateBook' && scenario.function !== 'DeleteBook';
    const count = requests + warmup + creates + (repeatable ? 0 : 1);
    await scenario.prepare(count);

    const metered = await instance(scenario.function, meter.endpoint, `meter-${n}`);
    const probe = requests + warmup;
    if (!repeatable) await invoke(metered, scenario, probe + creates);
    meter.take();
    for (let k = 0; k < creates; k++) await invoke(metered, scenario, probe + k);
    const first = meter.take();
    if (repeatable) await invoke(metered, scenario, probe);
    const warm = repeatable ? meter.take() : first;
    const calls = summarize(warm, creates);
    if (scenario.function === 'Authorizer') coldAuthorizer = summarize(oneTimeCalls(first, warm));
    if (roundTripsOnly) {
      routes.push({ function: scenario.function, label: scenario.label, calls, why: scenario.why });
      continue;
    }
    const timed = await instance(scenario.function, database.endpoint, `timed-${n}`);
    const latency = await measureLatency(timed, scenario, requests, warmup);
    routes.push({ function: scenario.function, label: scenario.label, calls, why: scenario.why, latency });
  }
  return { routes, ...(coldAuthorizer && { coldAuthorizer }) };
};

/**
 * Digest, counted on a warm authorizer: the challenge writes nothing; the answer reads the user and
 * counts the nonce's use once. `basic` is the Basic scenario, whose request warms the instance.
 */
export const measureDigest = async (
  instance: InstanceMaker,
  meter: DynamoMeter,
  basic: Scenario,
): Promise<RouteRow[]> => {
  const authorizer = await instance('Authorizer', meter.endpoint, 'meter-digest');
  const path = '/api/books'; // the local gateway's events carry no stage in the path
  const context = lambdaContext('Authorizer', 'bench-digest');
  await invoke(authorizer, basic, 0); // a warm container: its nonce key is loaded
  meter.take();
  const unauthenticated = authorizerEvent({ method: 'GET', path: '/api/books' });
  const denied = (await authorizer(unauthenticated, context)) as { context: { challenge: string } };
  const challengeCalls = summarize(meter.take());
  const answered = (await authorizer(
    authorizerEvent({
      method: 'GET',
      path: '/api/books',
      headers: { Authorization: digestAuthorization(denied.context.challenge, path) },
    }),
    context,
  )) as APIGatewayAuthorizerResult;
  if (answered.policyDocument.Statement[0]?.Effect !== 'Allow') throw new Error('The Digest answer was refused');
  const digestCalls = summarize(meter.take());
  return [
    {
      function: 'Authorizer',
      label: 'no credentials (challenge)',
      calls: challengeCalls,
      why: 'none: the nonce is HMAC-signed, so a challenge writes nothing and a flood costs no capacity',
    },
    {
      function: 'Authorizer',
      label: 'Digest answer',
      calls: digestCalls,
      why: 'as Basic, plus one conditional UpdateItem that raises the nonce’s counted nc: each (nonce, nc) is accepted once across all containers',
    },
  ];
};

/** Everything measured, with the header's date and the machine it was measured on. */
export const benchResults = (
  options: Pick<BenchOptions, 'quick' | 'runs' | 'requests'>,
  bundles: BundleMeasures,
  routes: RouteMeasures,
  scaling: ScalingRow[],
  now = new Date(),
): BenchResults => ({
  date: `${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  environment: `Node ${process.version}, ${arch()}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}${options.quick ? ' (--quick: smoke run, not for comparison)' : ''}`,
  importRuns: options.runs,
  requests: options.requests,
  ...bundles,
  ...routes,
  scaling,
  stackMemoryMb: FUNCTION_MEMORY_MB,
});

/**
 * Writes the tables to `options.out` (relative to the project) and, unless told not to, between
 * the markers of docs/benchmarks.md. Returns the report.
 */
/** The books table's ceilings are not a credential's: those come in the authorizer's section, after the generated block. */
const CREDENTIAL_CEILINGS_NOTE =
  "The books table's ceilings. Each credential is held to its own ceiling besides (docs/benchmarks.md, " +
  '"The authorizer per credential and client"), so a figure here needs at least rate ÷ that ceiling credentials.';

export const writeReport = (
  results: BenchResults,
  capacity: CapacityResults,
  options: Pick<BenchOptions, 'out' | 'docs'>,
  root = PROJECT_ROOT,
  /** The whole list streamed and buffered (bench/list-streaming.ts), when measured. */
  listStreaming = '',
): string => {
  // Sections joined by exactly one blank line, and the file ending in a newline, as Biome formats Markdown.
  const report = [
    renderReport(results),
    ...(listStreaming ? ['### Whole-catalogue list, streamed', listStreaming] : []),
    '### Throughput ceilings of the data model',
    CREDENTIAL_CEILINGS_NOTE,
    renderCapacity(capacity),
  ]
    .map((section) => section.trim())
    .join('\n\n');
  const outFile = resolve(root, options.out);
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `# Benchmark results\n\n${report}\n`);
  if (options.docs) {
    const docsPath = join(root, 'docs', 'benchmarks.md');
    writeFileSync(docsPath, withBenchBlock(readFileSync(docsPath, 'utf8'), report));
  }
  return report;
};
