import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BuiltFunction,
  buildFunction,
  esbuildOptions,
  extraOverFloor,
  FLOOR,
  FLOOR_BUNDLING,
  savingsAgainstFloor,
  UnsupportedBundlingOptionError,
} from '../../bench/bundles';
import { type DynamoMeter, startDynamoMeter, summarize } from '../../bench/dynamodb-meter';
import { proxyEvent } from '../../bench/events';
import { measureImportTimes, median, pairedRatio } from '../../bench/import-time';
import { loadBundle } from '../../bench/latency';
import { type BenchResults, BLOCK_END, BLOCK_START, overGoal, renderReport, withBenchBlock } from '../../bench/report';
import { measureScaling, SCALING_QUERIES } from '../../bench/scaling';
import { BUNDLING } from '../../infra/bundling';
import { lambdaContext } from '../../local/gateway';
import { DynamoBookStore } from '../../shared/store/books/dynamodb-book-store';
import { createTestTables } from '../support/dynamodb';

/** The bench's parts on a tiny scale: behaviour only, no timing thresholds, so the bench cannot rot. */
describe('bench', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'bench-test-'));
  let floor: BuiltFunction;
  let getBook: BuiltFunction;
  let listBooks: BuiltFunction;
  let meter: DynamoMeter;
  let tables: Awaited<ReturnType<typeof createTestTables>>;

  beforeAll(async () => {
    [floor, getBook, listBooks] = await Promise.all([
      buildFunction(FLOOR, outDir, FLOOR_BUNDLING),
      buildFunction({ name: 'GetBook', entry: 'functions/books/get.ts' }, outDir),
      buildFunction({ name: 'ListBooks', entry: 'functions/books/list.ts' }, outDir),
    ]);
    tables = await createTestTables();
    meter = await startDynamoMeter(tables.endpoint);
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: meter.endpoint,
      BOOKS_TABLE_NAME: tables.names.books,
      POWERTOOLS_LOG_LEVEL: 'CRITICAL',
      POWERTOOLS_METRICS_DISABLED: 'true', // EMF lines are not governed by the log level
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
  }, 120_000);
  afterAll(async () => {
    await meter?.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('builds with the options the stack gives NodejsFunction, and refuses options it cannot reproduce', () => {
    const options = esbuildOptions(BUNDLING, 'functions/books/get.ts', '/tmp/x/index.mjs');
    expect(options).toMatchObject({
      bundle: true,
      platform: 'node',
      format: BUNDLING.format,
      mainFields: BUNDLING.mainFields,
      minify: BUNDLING.minify,
      banner: { js: BUNDLING.banner },
      external: BUNDLING.externalModules,
    });
    expect(() => esbuildOptions({ ...BUNDLING, nodeModules: ['x'] }, 'a.ts', 'b.mjs')).toThrow(
      UnsupportedBundlingOptionError,
    );
  });

  it('reports the bundle Lambda loads, and what a function adds over the floor, largest first', () => {
    expect(getBook.file.endsWith('index.mjs')).toBe(true);
    expect(getBook.bytes).toBe(statSync(getBook.file).size);
    expect(extraOverFloor(floor, floor)).toEqual([]);
    const extras = extraOverFloor(getBook, floor);
    expect(extras.length).toBeGreaterThan(0);
    expect(extras.map(([, bytes]) => bytes)).toEqual([...extras.map(([, bytes]) => bytes)].sort((a, b) => b - a));
  });

  it('builds the floor by the issue’s recipe, without the stack’s alias, and shows what the alias saves', () => {
    expect(FLOOR_BUNDLING).toEqual(expect.not.objectContaining({ esbuildArgs: expect.anything() }));
    expect(esbuildOptions(BUNDLING, 'a.ts', 'b.mjs').alias).toEqual({
      '@aws-sdk/credential-provider-node': expect.stringMatching(/infra\/lambda-credential-provider\.ts$/),
    });
    expect(savingsAgainstFloor(getBook, floor).map(([pkg]) => pkg)).toContain('@aws-sdk/nested-clients');
  });

  it('times a fresh-process import of each bundle', () => {
    const times = measureImportTimes([floor.file, getBook.file], 1);
    for (const file of [floor.file, getBook.file]) {
      expect(times.get(file)?.wallMs).toBeGreaterThan(0);
      expect(times.get(file)?.cpuMs).toBeGreaterThan(0);
    }
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    const sample = (cpuMs: number) => ({ cpuMs, wallMs: cpuMs });
    const base = { ...sample(10), samples: [sample(10), sample(20), sample(10)] };
    const slower = { ...sample(12), samples: [sample(11), sample(24), sample(30)] };
    expect(pairedRatio(slower, base, (t) => t.cpuMs)).toBe(1.2); // rounds: 1.1, 1.2, 3 → median 1.2
  });

  it('meters the shipped bundle’s DynamoDB calls and their consumed capacity', async () => {
    const store = new DynamoBookStore(tables.documentClient, tables.names.books);
    const now = new Date().toISOString();
    const { book } = await store.create({
      title: 'T',
      author: 'A',
      isbn: 'meter-1',
      publicationYear: 2000,
      createdAt: now,
      updatedAt: now,
    });
    const handler = await loadBundle(getBook.file, 'bench-test');
    const event = proxyEvent({
      method: 'GET',
      path: `/api/books/${book.id}`,
    });
    const read = async (requestId: string) => {
      meter.take();
      const result = (await handler(event, lambdaContext('GetBook', requestId))) as { statusCode: number };
      expect(result.statusCode).toBe(200);
      return summarize(meter.take());
    };
    // A new container reads the table's schemaVersion once, before the book; a warm one reads the book only.
    expect(await read('cold')).toMatchObject({ roundTrips: 2, operations: 'GetItem ×2', writes: 0 });
    const warm = await read('warm');
    expect(warm).toMatchObject({ roundTrips: 1, operations: 'GetItem', writes: 0 });
    expect(warm.reads).toBeGreaterThan(0);
  });

  it('grows a table and measures every list query at each size through the list bundle', async () => {
    const list = await loadBundle(listBooks.file, 'bench-scale');
    const rows = await measureScaling({
      client: tables.documentClient,
      table: tables.names.books,
      sizes: [40, 80],
      list,
      meter,
      log: () => undefined,
    });
    expect(rows).toHaveLength(2 * SCALING_QUERIES.length);
    for (const row of rows) {
      expect(row.status).toBe(200);
      expect(row.roundTrips).toBeGreaterThan(0);
    }
    // A warm container at every size: the author filter reads its two keys, the first size included.
    const byAuthor = rows.filter((r) => r.label.startsWith('?author= '));
    expect(byAuthor.map((r) => r.roundTrips)).toEqual([2, 2]);
    const whole = rows.filter((r) => r.label.startsWith('no filter'));
    // ids 1..size (the metering test's book 1 is overwritten by the seed)
    expect(whole.map((r) => r.books)).toEqual([40, 80]);
  }, 60_000);

  it('renders the tables, flags functions over the goal, and replaces only the generated block of docs/benchmarks.md', () => {
    const size = (name: string, bytes: number, importMs: number) => ({
      name,
      bytes,
      importMs,
      importRatio: importMs / 40,
      extras: [],
      savings: [],
    });
    const results: BenchResults = {
      date: 'now',
      environment: 'test',
      importRuns: 9,
      requests: 500,
      floor: size('Floor', 100_000, 40),
      functions: [size('GetBook', 110_000, 44), size('ListBooks', 120_000, 41), size('Authorizer', 100_000, 47)],
      routes: [],
      scaling: [],
      stackMemoryMb: 512,
    };
    expect(overGoal(results)).toEqual(['ListBooks', 'Authorizer']);
    const report = renderReport(results);
    expect(report).toMatch(/\| GetBook +\| 107.4 +\| 1.100× +\| 44.00 +\| 1.100× +\|/);
    expect(report).toContain('**not met** by ListBooks, Authorizer');

    const latency = { p50: 1, p99: 2, rawP50: 1, rawP99: 2, cpuMs: 1, rawCpuMs: 0.5 };
    const priced = renderReport({
      ...results,
      routes: [
        {
          function: 'GetBook',
          label: 'GET',
          calls: { roundTrips: 1, reads: 0.5, writes: 0, capacity: 0.5, operations: 'GetItem' },
          why: '',
          latency,
        },
        {
          function: 'Authorizer',
          label: 'Digest answer',
          calls: { roundTrips: 2, reads: 0.5, writes: 1, capacity: 1.5, operations: 'GetItem + PutItem' },
          why: '',
          latency,
        },
      ],
    });
    const total = (request: string) =>
      Number(new RegExp(`\\| ${request} +\\|.*\\*\\*\\$([\\d.]+)\\*\\* +\\|`).exec(priced)?.[1]);
    // A client that asks for a fresh challenge each time pays a second gateway request and an authorizer call for its 401.
    expect(total('Digest, nextnonce or nonce reused: no 401 leg')).toBe(total('GET'));
    expect(total('Digest, a fresh challenge each time: 401 leg first') - total('GET')).toBeGreaterThan(3.5);

    const readme = `# T\n## Benchmarks\nintro\n${BLOCK_START}\nold\n${BLOCK_END}\nafter\n`;
    expect(withBenchBlock(readme, 'new')).toBe(`# T\n## Benchmarks\nintro\n${BLOCK_START}\nnew\n${BLOCK_END}\nafter\n`);
    expect(withBenchBlock('no markers', 'new')).toBe('no markers');
  });
});
