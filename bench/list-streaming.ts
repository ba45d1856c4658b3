import { spawn } from 'node:child_process';
import { FUNCTION_MEMORY_MB } from '../infra/constructs/route-function';
import { PROJECT_ROOT } from './bundles';

/** A list cap above every table size the bench lists whole (the default 35,000 would answer 422). */
export const BENCH_LIST_MAX_BOOKS = 10_000_000;

import { PRICES } from './cost';
import { markdownTable } from './markdown';

/**
 * The whole-catalogue list as Lambda streams it, at each table size of the bench: time to the first
 * body byte, total time and the rise of resident memory, measured in a fresh process
 * (bench/list-streaming-probe.ts) so no earlier step's heap is counted. Why the list streams:
 * docs/decisions/streamed-list.md.
 */
export interface ListStreamingRow {
  size: number;
  status: number;
  bytes: number;
  firstByteMs: number;
  totalMs: number;
  residentRiseBytes: number;
  /** Whether the same list completes in a process whose heap is capped at SMALL_HEAP_MB. */
  fitsSmallHeap: boolean;
}

/**
 * A heap smaller than a 100,000-book body (17.7 MB of JSON, held as parts and as one string, would
 * not fit), ample for the streamed list's pages. Resident memory depends on when the garbage
 * collector runs; a cap it cannot pass is the firmer measure of what a list needs.
 */
const SMALL_HEAP_MB = 48;

const probe = (
  endpoint: string,
  table: string,
  heapMb?: number,
): Promise<Omit<ListStreamingRow, 'size' | 'fitsSmallHeap'>> =>
  new Promise((done, fail) => {
    const heap = heapMb === undefined ? [] : [`--max-old-space-size=${heapMb}`];
    const child = spawn(process.execPath, [...heap, '--import', 'tsx', 'bench/list-streaming-probe.ts'], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        DYNAMODB_ENDPOINT: endpoint,
        BOOKS_TABLE_NAME: table,
        LIST_MAX_BOOKS: String(BENCH_LIST_MAX_BOOKS), // the whole table, past the default cap
        POWERTOOLS_LOG_LEVEL: 'CRITICAL',
        POWERTOOLS_METRICS_DISABLED: 'true',
        NODE_NO_WARNINGS: '1',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => {
      const line = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) fail(new Error(`list-streaming probe failed:\n${stderr}`));
      else done(JSON.parse(line));
    });
  });

/** The whole list over the table as it is now (`size` books), straight against Dynoxide. */
export const measureListStreaming = async (options: {
  endpoint: string;
  table: string;
  size: number;
  log: (line: string) => void;
}): Promise<ListStreamingRow[]> => {
  // Dynoxide's first pass over a freshly written table is slower than any later one: a first
  // pass, not reported, keeps that from the figures.
  await probe(options.endpoint, options.table);
  const fitsSmallHeap = await probe(options.endpoint, options.table, SMALL_HEAP_MB).then(
    (result) => result.status === 200,
    () => false, // out of memory: V8 aborts the process
  );
  const row = { size: options.size, ...(await probe(options.endpoint, options.table)), fitsSmallHeap };
  if (row.status !== 200)
    throw new Error(`The whole list of ${options.size} answered ${row.status}: no figures for a refusal`);
  options.log(
    `  whole list of ${options.size}: ${row.status}, first byte ${Math.round(row.firstByteMs)} ms, total ${Math.round(row.totalMs)} ms, memory +${mb(row.residentRiseBytes)} MB, ${fitsSmallHeap ? 'fits' : 'does not fit'} a ${SMALL_HEAP_MB} MB heap`,
  );
  return [row];
};
/** API Gateway streams the first 10 MB of a response unthrottled, the rest at 2 MB/s. */
const UNTHROTTLED_STREAM_BYTES = 10 * 1024 * 1024;
const STREAM_BYTES_PER_SECOND = 2 * 1024 * 1024;
/** API Gateway bills a streamed response as one request per 10 MB, rounded up. */
const STREAM_BILLING_UNIT_BYTES = 10 * 1024 * 1024;
/** Lambda bills the bytes a function streams beyond the first 6 MB of a response. */
const LAMBDA_FREE_STREAM_BYTES = 6 * 1024 * 1024;

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const GB = 1024 ** 3;

/** The least time API Gateway takes to deliver `bytes` to a client that reads at once. */
const minimumDeliverySeconds = (bytes: number) =>
  Math.max(0, bytes - UNTHROTTLED_STREAM_BYTES) / STREAM_BYTES_PER_SECOND;

/** What one million streamed responses of `bytes` cost beyond what a buffered one would. */
const streamingCostPerMillion = (bytes: number) => {
  const gatewayRequests = Math.max(1, Math.ceil(bytes / STREAM_BILLING_UNIT_BYTES));
  return {
    gatewayRequests,
    gateway: gatewayRequests * PRICES.restApiPerMillion,
    lambdaStreamedBytes: (1e6 * Math.max(0, bytes - LAMBDA_FREE_STREAM_BYTES) * PRICES.lambdaStreamedPerGb) / GB,
    /** The function stays up while the gateway delivers at 2 MB/s: that time is billed too. */
    lambdaDelivery: 1e6 * (FUNCTION_MEMORY_MB / 1024) * minimumDeliverySeconds(bytes) * PRICES.lambdaArmGbSecond,
  };
};

export const renderListStreaming = (rows: ListStreamingRow[]): string => {
  const sizes = [...new Set(rows.map((row) => row.size))];
  const timing = markdownTable(
    ['books', 'JSON', 'first byte', 'total', 'memory rise', `in a ${SMALL_HEAP_MB} MB heap`],
    sizes.map((size) => {
      const streamed = rows.find((row) => row.size === size) as ListStreamingRow;
      return [
        size.toLocaleString('en'),
        `${mb(streamed.bytes)} MB`,
        `${Math.round(streamed.firstByteMs)} ms`,
        `${Math.round(streamed.totalMs)} ms`,
        `${mb(streamed.residentRiseBytes)} MB`,
        streamed.fitsSmallHeap ? 'completes' : 'out of memory',
      ];
    }),
    ['right', 'right', 'right', 'right', 'right', 'left'],
  );
  const cost = markdownTable(
    [
      'books',
      'JSON',
      'gateway requests billed',
      'API Gateway $/M',
      'Lambda streamed bytes $/M',
      'least delivery time',
      'Lambda time delivering $/M',
    ],
    sizes.map((size) => {
      const { bytes } = rows.find((row) => row.size === size) as ListStreamingRow;
      const price = streamingCostPerMillion(bytes);
      return [
        size.toLocaleString('en'),
        `${mb(bytes)} MB`,
        String(price.gatewayRequests),
        price.gateway.toFixed(2),
        price.lambdaStreamedBytes.toFixed(2),
        `${minimumDeliverySeconds(bytes).toFixed(1)} s`,
        price.lambdaDelivery.toFixed(2),
      ];
    }),
    ['right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  return `${timing}\n\nStreaming's price per million whole lists of that size (on top of the DynamoDB reads in the capacity table):\n\n${cost}`;
};
