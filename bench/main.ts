import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LIST_MAX_BOOKS } from '../shared/books/limits';
import { ENV } from '../shared/config';
import { runTool } from '../tools/cli';
import { measureAuthCapacity, renderAuthCapacity, renderAuthPrices } from './auth-capacity';
import { measureCapacity } from './capacity';
import { measureChangeEvents, renderChangeEvents } from './change-events';
import {
  BENCH_LIST_MAX_BOOKS,
  type ListStreamingRow,
  measureListStreaming,
  renderListStreaming,
} from './list-streaming';
import { measurePageCost, renderPageCost } from './page-cost';
import { measurePageFloor, renderPageFloor } from './page-floor';
import { overGoal, roundTripTable } from './report';
import { measureScaling } from './scaling';
import { scenarios } from './scenarios';
import {
  BENCH_TABLES,
  benchResults,
  buildBundles,
  COMMAND,
  instanceMaker,
  log,
  measureBundles,
  measureDigest,
  measureRoutes,
  parseBenchOptions,
  setUpDatabase,
  writeReport,
} from './steps';

/** `npm run bench`: build every bundle, measure it, write the tables (bench/steps.ts has each step). */
const main = async () => {
  const options = parseBenchOptions(process.argv.slice(2));
  if (!options) return;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'; // the bench's Node may be older than Lambda's
  const outDir = mkdtempSync(join(tmpdir(), 'book-library-bench-'));
  const cleanup: (() => Promise<void>)[] = [async () => rmSync(outDir, { recursive: true, force: true })];
  try {
    log('Building the floor and every function with the stack’s BUNDLING …');
    const built = await buildBundles(outDir);
    log('Starting Dynoxide …');
    const database = await setUpDatabase();
    cleanup.push(database.stop);
    const instance = instanceMaker(built.functions);
    const all = scenarios({ client: database.client, books: BENCH_TABLES.books, auth: BENCH_TABLES.auth });
    const routes = await measureRoutes(all, instance, database, options.requests, options.roundTripsOnly);
    const basic = all.find((s) => s.function === 'Authorizer');
    if (!basic) throw new Error('no Basic authorizer scenario');
    routes.routes.push(...(await measureDigest(instance, database.meter, basic)));
    if (options.roundTripsOnly) {
      console.log(roundTripTable(routes.routes, { withWhy: true }));
      return;
    }

    log(`Import times: ${options.runs} interleaved rounds of fresh processes …`);
    const bundles = measureBundles(built, options.runs, (round) =>
      process.stderr.write(`\r  round ${round} / ${options.runs}`),
    );
    process.stderr.write('\n');

    log(`List capacity at ${options.sizes.join(', ')} books …`);
    process.env[ENV.booksTableName] = BENCH_TABLES.scale;
    // The whole table is listed at every size: a cap above the largest size, so the default's 422
    // does not stand in for the list being measured (its count pass is still measured with it).
    process.env[ENV.listMaxBooks] = String(BENCH_LIST_MAX_BOOKS);
    const streaming: ListStreamingRow[] = [];
    const scaling = await measureScaling({
      client: database.client,
      table: BENCH_TABLES.scale,
      sizes: options.sizes,
      list: await instance('ListBooks', database.meter.endpoint, 'scale'),
      meter: database.meter,
      log,
      atEachSize: async (size) => {
        const rows = await measureListStreaming({ endpoint: database.endpoint, table: BENCH_TABLES.scale, size, log });
        streaming.push(...rows);
      },
    });

    log('Capacity model: per-key load of every route …');
    const capacity = await measureCapacity(database.meter, BENCH_TABLES.capacity, options.quick ? 64 : 256, 'this run');

    log("Capacity model: the authorizer's calls per credential …");
    const authorizerCpuMs = routes.routes.find((row) => row.function === 'Authorizer' && row.latency)?.latency?.cpuMs;
    const authRows = await measureAuthCapacity(database.meter, BENCH_TABLES.auth, 64, authorizerCpuMs);

    log('Pages of the unfiltered list, id ranges …');
    const pageBooks = options.quick ? 500 : 2_000;
    const pageCost = renderPageCost(await measurePageCost(database.endpoint, database.meter, pageBooks), pageBooks);

    log('The store floor: ids across failed creates, page calls, a refused list, filtered pages …');
    const floorSizes = options.quick
      ? { pageBooks: 500, capBooks: 4_000, cap: 3_500 }
      : { pageBooks: 2_000, capBooks: 40_000, cap: DEFAULT_LIST_MAX_BOOKS };
    const pageFloor = renderPageFloor(
      await measurePageFloor(database.endpoint, database.meter, floorSizes),
      floorSizes.pageBooks,
    );

    log('Change events: the local pipeline’s throughput and the modelled cost on AWS …');
    const changeEvents = renderChangeEvents(
      await measureChangeEvents(database.endpoint, database.meter, options.quick ? 200 : 1_000, log),
    );

    const results = benchResults(options, bundles, routes, scaling);
    console.log(writeReport(results, capacity, options, undefined, renderListStreaming(streaming)));
    console.log(`\n${pageCost}`);
    console.log(`\n${pageFloor}`);
    console.log(`\n### The authorizer per credential\n\n${renderAuthCapacity(authRows)}`);
    console.log(`\n### Authentication's price per credential and client\n\n${renderAuthPrices(authRows)}`);
    console.log(`\n${changeEvents}`);
    const over = overGoal(results);
    log(over.length === 0 ? 'Every function is within the goal.' : `Over the goal: ${over.join(', ')}`);
  } finally {
    for (const step of cleanup.reverse()) await step().catch((error) => log(`cleanup: ${error}`));
  }
};

runTool(COMMAND, main);
