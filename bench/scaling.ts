import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { lambdaContext } from '../local/gateway';
import { functionTimeoutMs, ROUTES } from '../shared/api/routes';
import type { Book } from '../shared/books/types';
import type { DynamoMeter } from './dynamodb-meter';
import { summarize } from './dynamodb-meter';
import { proxyEvent } from './events';
import type { Handler } from './latency';
import { seedBooks } from './seed';

/** The books every table size shares: this many match the author filter and the year filter. */
const FIXED_MATCHES = 20;
const SCALE_AUTHOR = 'Scale Match';
const SCALE_YEAR = 1234;

/**
 * Book `id` of the scaling table. The first FIXED_MATCHES × 50 ids hold the matches (every 50th);
 * all others have one of 997 authors and a year in 1500–1999, so as the table grows, other
 * authors and years grow and the matches stay the same.
 */
const scaleBook = (id: number): Book => {
  const match = id % 50 === 0 && id <= FIXED_MATCHES * 50;
  const now = '2026-01-01T00:00:00.000Z';
  return {
    id,
    title: `Scaling book ${id}`,
    author: match ? SCALE_AUTHOR : `Author ${id % 997}`,
    isbn: `scale-${id}`,
    publicationYear: match ? SCALE_YEAR : 1500 + (id % 500),
    createdAt: now,
    updatedAt: now,
  };
};

const LIST_ROUTE = ROUTES.find((route) => route.name === 'ListBooks') as (typeof ROUTES)[number];

export interface ScalingQuery {
  label: string;
  query: Record<string, string>;
}

export const SCALING_QUERIES: ScalingQuery[] = [
  { label: `?author= (${FIXED_MATCHES} matches)`, query: { author: SCALE_AUTHOR } },
  { label: `?year= (${FIXED_MATCHES} matches)`, query: { year: String(SCALE_YEAR) } },
  { label: '?author=&year= (same matches)', query: { author: SCALE_AUTHOR, year: String(SCALE_YEAR) } },
  { label: '?limit=100 (first page)', query: { limit: '100' } },
  { label: 'no filter (whole table)', query: {} },
];

export interface ScalingRow {
  size: number;
  label: string;
  status: number;
  books: number | undefined;
  roundTrips: number;
  capacity: number;
  responseBytes: number;
}

/**
 * Grows one table to each size in turn and runs every query through the list function (bundled,
 * metered), recording status, round trips and consumed read capacity.
 */
export const measureScaling = async (options: {
  client: DynamoDBDocumentClient;
  table: string;
  sizes: number[];
  list: Handler;
  meter: DynamoMeter;
  log: (line: string) => void;
  /** Further measurements at each size, once the table holds it. */
  atEachSize?: (size: number) => Promise<void>;
}): Promise<ScalingRow[]> => {
  const rows: ScalingRow[] = [];
  let seeded = 0;
  const invoke = (query: Record<string, string>) =>
    options.list(
      proxyEvent({ method: 'GET', path: '/api/books', query }),
      lambdaContext('ListBooks', randomUUID(), functionTimeoutMs(LIST_ROUTE)),
    ) as Promise<{ statusCode: number; body: string }>;
  // A warm container, at every size alike: a new one's first request reads the id-blocks item once
  // more, its schema check (bench/page-floor.ts measures that first request).
  await invoke({ author: SCALE_AUTHOR });
  for (const size of options.sizes) {
    const started = Date.now();
    await seedBooks(options.client, options.table, seeded + 1, size, scaleBook, {
      parallel: 8,
      onProgress: (written) => {
        if (written % 5000 < 25 || seeded + written >= size) {
          process.stderr.write(`\r  seeding: ${seeded + written} / ${size} books`);
        }
      },
    });
    process.stderr.write('\n');
    options.log(`  ${size} books seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    seeded = size;
    for (const { label, query } of SCALING_QUERIES) {
      options.meter.take();
      const result = await invoke(query);
      const { roundTrips, capacity } = summarize(options.meter.take());
      rows.push({
        size,
        label,
        status: result.statusCode,
        books: result.statusCode === 200 ? (JSON.parse(result.body) as unknown[]).length : undefined,
        roundTrips,
        capacity,
        responseBytes: Buffer.byteLength(result.body),
      });
    }
    await options.atEachSize?.(size);
  }
  return rows;
};
