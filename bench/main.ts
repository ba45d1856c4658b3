import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { FUNCTION_MEMORY_MB } from '../infra/constructs/route-function';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { lambdaContext } from '../local/gateway';
import { ensureTables } from '../local/tables';
import { createDocumentClient, createDynamoClient } from '../shared/store/dynamodb-client';
import { integerOption, parseCommandLine, runTool, UsageError } from '../tools/cli';
import {
  type BuiltFunction,
  buildAll,
  buildFunction,
  extraOverFloor,
  FLOOR_BUNDLING,
  PROJECT_ROOT,
  replaceModule,
  savingsAgainstFloor,
} from './bundles';
import { measureCapacity, readCapacityBaseline, renderCapacity } from './capacity';
import { type MeteredCall, startDynamoMeter, summarize } from './dynamodb-meter';
import { authorizerEvent } from './events';
import { type ImportTimes, measureImportTimes, pairedRatio } from './import-time';
import { type Handler, invoke, loadBundle, measureLatency } from './latency';
import {
  type AlternativeRow,
  type BenchResults,
  overGoal,
  type RouteRow,
  renderReport,
  withBenchBlock,
} from './report';
import { measureScaling } from './scaling';
import { BENCH_USER, digestAuthorization, scenarios } from './scenarios';

const HELP = `npm run bench [-- options]

Builds the floor bundle and every function exactly as the stack bundles them, then measures bundle
size, fresh-process import time, warm latency against DynamoDB Local next to the raw SDK calls,
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
  -h, --help       this text

Needs Java 17+ (DynamoDB Local). A full run takes a few minutes, most of it seeding 100,000 books.`;

const COMMAND = 'npm run bench --';

const parse = () => {
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    options: {
      quick: { type: 'boolean', default: false },
      runs: { type: 'string' },
      requests: { type: 'string' },
      sizes: { type: 'string' },
      out: { type: 'string' },
      'no-docs': { type: 'boolean', default: false },
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
  };
};

const log = (line: string) => process.stderr.write(`${line}\n`);

const ALTERNATIVE_DECISIONS = {
  consoleLogger:
    'Logger stays: structured JSON with the request id, route and cold start for ≈ 17 KB, and every function is well inside the goal with it',
  metrics:
    'Metrics stays: EMF counts of 4xx, 5xx and authentication failures for ≈ 10 KB (this row: what Metrics alone adds to the floor)',
  defaultChain:
    'goes: on Lambda only the chain’s environment link ever runs; the alias in BUNDLING keeps just that link (infra/lambda-credential-provider.ts)',
};

const main = async () => {
  const options = parse();
  if (!options) return;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'; // Node 20 here; Lambda runs 22/24
  const outDir = mkdtempSync(join(tmpdir(), 'book-library-bench-'));
  const cleanup: (() => Promise<void>)[] = [async () => rmSync(outDir, { recursive: true, force: true })];
  try {
    log('Building the floor and every function with the stack’s BUNDLING …');
    const built = await buildAll(outDir);
    const [floor, ...functions] = built as [BuiltFunction, ...BuiltFunction[]];
    const consoleLogger = await buildFunction(
      { name: 'GetBook-console-logger', entry: 'functions/books/get.ts' },
      outDir,
      undefined,
      [replaceModule(/\/logger$/, 'bench/alternatives/console-logger.ts')],
    );
    const metricsProbe = await buildFunction(
      { name: 'Floor-plus-metrics', entry: 'bench/alternatives/metrics-probe.ts' },
      outDir,
      FLOOR_BUNDLING,
    );
    const defaultChain = await buildFunction(
      { name: 'GetBook-default-credential-chain', entry: 'functions/books/get.ts' },
      outDir,
      FLOOR_BUNDLING,
    );

    log(`Import times: ${options.runs} interleaved rounds of fresh processes …`);
    const bundles = [...built, consoleLogger, metricsProbe, defaultChain];
    const importMs = measureImportTimes(
      bundles.map((b) => b.file),
      options.runs,
      (round) => process.stderr.write(`\r  round ${round} / ${options.runs}`),
    );
    process.stderr.write('\n');
    const floorTimes = importMs.get(floor.file) as ImportTimes;
    const sizeRow = (b: BuiltFunction) => ({
      name: b.name,
      bytes: b.bytes,
      importMs: (importMs.get(b.file) as ImportTimes).cpuMs,
      importWallMs: (importMs.get(b.file) as ImportTimes).wallMs,
      importRatio: pairedRatio(importMs.get(b.file) as ImportTimes, floorTimes, (t) => t.cpuMs),
      importWallRatio: pairedRatio(importMs.get(b.file) as ImportTimes, floorTimes, (t) => t.wallMs),
      extras: extraOverFloor(b, floor, 4),
      savings: savingsAgainstFloor(b, floor),
    });
    const alternatives: AlternativeRow[] = [
      {
        label: 'GetBook with a console logger instead of Powertools Logger',
        ...sizeRow(consoleLogger),
        decision: ALTERNATIVE_DECISIONS.consoleLogger,
      },
      {
        label: 'Floor + Powertools Metrics (one metric)',
        ...sizeRow(metricsProbe),
        decision: ALTERNATIVE_DECISIONS.metrics,
      },
      {
        label: 'GetBook with the SDK’s whole default credential chain (no alias)',
        ...sizeRow(defaultChain),
        decision: ALTERNATIVE_DECISIONS.defaultChain,
      },
    ];

    log('Starting DynamoDB Local …');
    const database = await startDynamoDbLocal();
    cleanup.push(() => database.stop());
    const meter = await startDynamoMeter(database.endpoint);
    cleanup.push(() => meter.close());
    const names = { books: 'bench-books', auth: 'bench-auth' };
    await ensureTables(createDynamoClient(database.endpoint), names);
    await ensureTables(createDynamoClient(database.endpoint), { books: 'bench-scale', auth: 'bench-scale-auth' });
    const client = createDocumentClient(database.endpoint);
    Object.assign(process.env, {
      BOOKS_TABLE_NAME: names.books,
      AUTH_TABLE_NAME: names.auth,
      AUTH_REALM: BENCH_USER.realm,
      POWERTOOLS_LOG_LEVEL: 'CRITICAL',
      // EMF lines would flood the report; serialising a few counters is not what the latency measures.
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_REGION: 'local',
    });
    delete process.env.NONCE_SECRET; // the authorizer loads its key from the table, as deployed

    const fileOf = new Map(functions.map((f) => [f.name, f.file]));
    const instance = async (fn: string, endpoint: string, tag: string): Promise<Handler> => {
      process.env.DYNAMODB_ENDPOINT = endpoint; // read by the bundle's client at its first request
      return loadBundle(fileOf.get(fn) as string, `${tag}-${fn}`);
    };

    const routes: RouteRow[] = [];
    let coldAuthorizer: BenchResults['coldAuthorizer'];
    const warmup = Math.max(10, Math.round(options.requests / 10));
    const all = scenarios({ client, books: names.books, auth: names.auth });
    for (const [n, scenario] of all.entries()) {
      log(`[${n + 1}/${all.length}] ${scenario.function} ${scenario.label}`);
      const count = options.requests + warmup + 1;
      await scenario.prepare(count);

      const metered = await instance(scenario.function, meter.endpoint, `meter-${n}`);
      const probe = options.requests + warmup;
      meter.take();
      await invoke(metered, scenario, probe);
      const first = meter.take();
      // A second identical create or delete would be a 409 or 404: their first request is the measure.
      const repeatable = scenario.function !== 'CreateBook' && scenario.function !== 'DeleteBook';
      if (repeatable) await invoke(metered, scenario, probe);
      const warm = repeatable ? meter.take() : first;
      const calls = summarize(warm);
      if (scenario.function === 'Authorizer') coldAuthorizer = summarize(oneTimeCalls(first, warm));
      const timed = await instance(scenario.function, database.endpoint, `timed-${n}`);
      const latency = await measureLatency(timed, scenario, options.requests, warmup);
      routes.push({ function: scenario.function, label: scenario.label, calls, why: scenario.why, latency });
    }

    // Digest: the challenge writes nothing; the answer reads the user and spends the nonce once.
    const authorizer = await instance('Authorizer', meter.endpoint, 'meter-digest');
    const path = '/api/books'; // the local gateway's events carry no stage in the path
    const context = lambdaContext('Authorizer', 'bench-digest');
    const basic = all.find((s) => s.function === 'Authorizer') as (typeof all)[number];
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
    routes.push(
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
        why: 'GetItem for the user, then one conditional PutItem that spends the nonce: single use across all containers needs one write',
      },
    );

    log(`List capacity at ${options.sizes.join(', ')} books …`);
    process.env.BOOKS_TABLE_NAME = 'bench-scale';
    const list = await instance('ListBooks', meter.endpoint, 'scale');
    const scaling = await measureScaling({ client, table: 'bench-scale', sizes: options.sizes, list, meter, log });

    log('Capacity model: per-key load of every route, old layout beside new …');
    await ensureTables(createDynamoClient(database.endpoint), { books: 'bench-capacity', auth: 'bench-capacity-auth' });
    const capacity = await measureCapacity(meter, 'bench-capacity', options.quick ? 64 : 256, 'this run');

    const results: BenchResults = {
      date: `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      environment: `Node ${process.version}, ${arch()}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}${options.quick ? ' (--quick: smoke run, not for comparison)' : ''}`,
      importRuns: options.runs,
      requests: options.requests,
      floor: sizeRow(floor),
      functions: functions.map(sizeRow),
      alternatives,
      routes,
      ...(coldAuthorizer && { coldAuthorizer }),
      scaling,
      stackMemoryMb: FUNCTION_MEMORY_MB,
    };
    const report = `${renderReport(results)}\n\n### Throughput ceilings of the data model\n\n${renderCapacity(capacity, readCapacityBaseline(PROJECT_ROOT))}`;
    const outFile = resolve(PROJECT_ROOT, options.out);
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, `# Benchmark results\n\n${report}`);
    if (options.docs) {
      const docsPath = join(PROJECT_ROOT, 'docs', 'benchmarks.md');
      writeFileSync(docsPath, withBenchBlock(readFileSync(docsPath, 'utf8'), report));
    }
    console.log(report);
    const over = overGoal(results);
    log(over.length === 0 ? 'Every function is within the goal.' : `Over the goal: ${over.join(', ')}`);
  } finally {
    for (const step of cleanup.reverse()) await step().catch((error) => log(`cleanup: ${error}`));
  }
};

/** The calls of a container's first request that its second did not repeat (one-time loading). */
const oneTimeCalls = (first: MeteredCall[], warm: MeteredCall[]): MeteredCall[] => {
  const extra = [...first];
  for (const call of warm) {
    const same = extra.findIndex((e) => e.operation === call.operation && e.capacityUnits === call.capacityUnits);
    const index = same >= 0 ? same : extra.findIndex((e) => e.operation === call.operation);
    if (index >= 0) extra.splice(index, 1);
  }
  return extra;
};

runTool(COMMAND, main);
