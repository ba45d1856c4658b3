import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltFunction, buildFunction, FLOOR, FLOOR_BUNDLING } from '../../bench/bundles';
import type { CapacityResults } from '../../bench/capacity';
import { type DynamoMeter, type MeteredCall, startDynamoMeter } from '../../bench/dynamodb-meter';
import { BLOCK_END, BLOCK_START } from '../../bench/report';
import {
  BENCH_USER,
  basicAuthorizerScenario,
  benchFixtures,
  deleteBookScenario,
  getBookScenario,
  scenarios,
} from '../../bench/scenarios';
import {
  benchResults,
  instanceMaker,
  measureBundles,
  measureDigest,
  measureRoutes,
  oneTimeCalls,
  parseBenchOptions,
  writeReport,
} from '../../bench/steps';
import { UsageError } from '../../tools/cli';
import { createPatientDocumentClient, createTestTables } from '../support/dynamodb';

/** `npm run bench`'s steps, each called on its own at a tiny scale: behaviour only, no timing thresholds. */
describe('npm run bench, step by step', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'bench-steps-'));
  let floor: BuiltFunction;
  let getBook: BuiltFunction;
  let deleteBook: BuiltFunction;
  let authorizer: BuiltFunction;
  let meter: DynamoMeter;
  let tables: Awaited<ReturnType<typeof createTestTables>>;

  beforeAll(async () => {
    [floor, getBook, deleteBook, authorizer] = await Promise.all([
      buildFunction(FLOOR, outDir, FLOOR_BUNDLING),
      buildFunction({ name: 'GetBook', entry: 'functions/books/get.ts' }, outDir),
      buildFunction({ name: 'DeleteBook', entry: 'functions/books/delete.ts' }, outDir),
      buildFunction({ name: 'Authorizer', entry: 'functions/authorizer/handler.ts' }, outDir),
    ]);
    tables = await createTestTables();
    meter = await startDynamoMeter(tables.endpoint);
    Object.assign(process.env, {
      BOOKS_TABLE_NAME: tables.names.books,
      AUTH_TABLE_NAME: tables.names.auth,
      AUTH_REALM: BENCH_USER.realm,
      POWERTOOLS_LOG_LEVEL: 'CRITICAL',
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
    delete process.env.NONCE_SECRET;
  }, 120_000);
  afterAll(async () => {
    await meter?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('parses options: full and quick defaults, growing sizes, --help', () => {
    expect(parseBenchOptions([])).toEqual({
      quick: false,
      runs: 51,
      requests: 500,
      sizes: [1000, 10000, 100000],
      out: 'bench/results.md',
      docs: true,
      roundTripsOnly: false,
    });
    expect(parseBenchOptions(['--quick'])).toEqual({
      quick: true,
      runs: 3,
      requests: 50,
      sizes: [200, 1000],
      out: '.bench/quick-results.md',
      docs: false,
      roundTripsOnly: false,
    });
    expect(parseBenchOptions(['--round-trips'])).toMatchObject({ roundTripsOnly: true });
    expect(parseBenchOptions(['--sizes', '10, 20', '--no-docs', '--out', 'x.md'])).toMatchObject({
      sizes: [10, 20],
      docs: false,
      out: 'x.md',
    });
    expect(() => parseBenchOptions(['--sizes', '20,10'])).toThrow(new UsageError('--sizes must grow'));
    expect(() => parseBenchOptions(['--runs', '0'])).toThrow(UsageError);
    expect(parseBenchOptions(['--help'])).toBeUndefined();
  });

  it('lists every scenario, one function each, in the order of the tables', () => {
    const all = scenarios({ client: tables.documentClient, books: tables.names.books, auth: tables.names.auth });
    expect(all.map((s) => s.function)).toEqual([
      'GetBook',
      'ListBooks',
      'ListBooks',
      'CreateBook',
      'CreateBook',
      'CreateBook',
      'ReplaceBook',
      'ReplaceBook',
      'PatchBook',
      'DeleteBook',
      'Authorizer',
    ]);
  });

  it('measures the size and import time of each bundle against the floor', () => {
    const measures = measureBundles({ floor, functions: [getBook] }, 1);
    expect(measures.floor).toMatchObject({ name: 'Floor', bytes: floor.bytes, extras: [] });
    expect(measures.functions.map((row) => row.name)).toEqual(['GetBook']);
    expect(measures.functions[0]?.importMs).toBeGreaterThan(0);
    expect(measures.floor.importRatio).toBe(1); // the floor against itself
  }, 60_000);

  it('meters and times the read and the delete scenario through their bundles', async () => {
    // Fixtures through a patient client: the store makes 200 books at once, on a machine that may be busy.
    const fixtures = benchFixtures({
      client: createPatientDocumentClient(tables.endpoint),
      books: tables.names.books,
      auth: tables.names.auth,
    });
    const instance = instanceMaker([getBook, deleteBook]);
    const { routes, coldAuthorizer } = await measureRoutes(
      [getBookScenario(fixtures), deleteBookScenario(fixtures)],
      instance,
      { endpoint: tables.endpoint, meter },
      3,
    );
    expect(coldAuthorizer).toBeUndefined();
    expect(routes.map((r) => [r.function, r.calls.operations])).toEqual([
      ['GetBook', 'GetItem'],
      ['DeleteBook', 'GetItem + TransactWriteItems'],
    ]);
    for (const route of routes) expect(route.latency?.p50).toBeGreaterThan(0);
    await expect(instance('ListBooks', tables.endpoint, 'x')).rejects.toThrow('no bundle for ListBooks');
  }, 120_000);

  it('counts what a Digest challenge and its answer cost the authorizer', async () => {
    const basic = basicAuthorizerScenario(
      benchFixtures({ client: tables.documentClient, books: tables.names.books, auth: tables.names.auth }),
    );
    await basic.prepare(1);
    const [challenge, answer] = await measureDigest(instanceMaker([authorizer]), meter, basic);
    expect(challenge).toMatchObject({ label: 'no credentials (challenge)', calls: { roundTrips: 0 } });
    expect(answer).toMatchObject({
      label: 'Digest answer',
      calls: { operations: 'GetItem + UpdateItem ×2', writes: 2 },
    });
  }, 60_000);

  it('keeps a first request’s one-time calls: those its second request did not repeat', () => {
    const call = (operation: string, capacityUnits: number) => ({ operation, capacityUnits }) as MeteredCall;
    const first = [call('GetItem', 0.5), call('GetItem', 1), call('PutItem', 1)];
    expect(oneTimeCalls(first, [call('GetItem', 0.5), call('PutItem', 1)])).toEqual([call('GetItem', 1)]);
    expect(oneTimeCalls(first, first)).toEqual([]);
  });

  it('writes the report to its file, and into the marked block of docs/benchmarks.md only when asked', () => {
    const root = mkdtempSync(join(tmpdir(), 'bench-report-'));
    try {
      mkdirSync(join(root, 'docs'));
      const page = `# Benchmarks\n${BLOCK_START}\nold\n${BLOCK_END}\n`;
      writeFileSync(join(root, 'docs/benchmarks.md'), page);
      const size = { name: 'Floor', bytes: 1024, importMs: 1, importWallMs: 1, importRatio: 1, importWallRatio: 1 };
      const results = benchResults(
        { quick: true, runs: 1, requests: 1 },
        { floor: { ...size, extras: [], savings: [] }, functions: [] },
        { routes: [] },
        [],
        new Date('2026-01-02T03:04:05Z'),
      );
      expect(results.date).toBe('2026-01-02 03:04 UTC');
      expect(results.environment).toMatch(/^Node v\d+.*\(--quick: smoke run, not for comparison\)$/);
      const capacity: CapacityResults = { source: 'this run', requestsPerScenario: 1, rows: [] };

      const report = writeReport(results, capacity, { out: 'out/results.md', docs: false }, root);
      expect(readFileSync(join(root, 'out/results.md'), 'utf8')).toBe(`# Benchmark results\n\n${report}\n`);
      expect(readFileSync(join(root, 'docs/benchmarks.md'), 'utf8')).toBe(page);

      writeReport(results, capacity, { out: 'out/results.md', docs: true }, root);
      expect(readFileSync(join(root, 'docs/benchmarks.md'), 'utf8')).toBe(
        `# Benchmarks\n${BLOCK_START}\n${report}\n${BLOCK_END}\n`,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
