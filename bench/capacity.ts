import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { ensureTables } from '../local/tables';
import type { Book, NewBook } from '../shared/books/types';
import { DynamoBookStore } from '../shared/store/dynamodb-book-store';
import { createDocumentClient, createDynamoClient, PATIENT_CLIENT_LIMITS } from '../shared/store/dynamodb-client';
import { BOOKS_TABLE } from '../shared/store/tables';
import { CapacityModel, type Ceiling, ceilingOf, type LoadProfile, mixOf, profileOf } from './capacity-model';
import { type DynamoMeter, startDynamoMeter } from './dynamodb-meter';
import { markdownTable } from './markdown';

/** The goals the data model is held to, per scenario (requests per second on one table). */
export const CAPACITY_GOALS: Record<string, number> = {
  'POST /api/books': 10_000,
  'PATCH /api/books/{id}': 10_000,
  'GET /api/books/{id}': 30_000,
  'POST /api/books, all of one publication year (bulk import)': 5_000,
};

export interface CapacityRow {
  scenario: string;
  ceiling: Ceiling;
}

export interface CapacityResults {
  /** Which code produced the rows: `this run`, or the layout a baseline was recorded from. */
  source: string;
  requestsPerScenario: number;
  rows: CapacityRow[];
}

const stamp = '2026-01-01T00:00:00.000Z';

/**
 * Runs each route's DynamoDB traffic through the store (what the handlers send, nothing else) behind
 * the metering proxy, and turns what it saw into each scenario's ceiling: the request rate at which
 * the hottest partition key or item reaches DynamoDB's per-partition limit. The same code runs on
 * an older layout's code to record its figures (bench/capacity-baseline.json).
 */
export const measureCapacity = async (
  meter: DynamoMeter,
  tableName: string,
  requests: number,
  source: string,
): Promise<CapacityResults> => {
  // Units, not time, are measured here: a retried write would be metered twice.
  const store = new DynamoBookStore(createDocumentClient(meter.endpoint, PATIENT_CLIENT_LIMITS), tableName);
  const model = new CapacityModel(BOOKS_TABLE);
  let seq = 0;
  const newBook = (extra: Partial<NewBook> = {}): NewBook => {
    seq++;
    return {
      title: `Capacity ${seq}`,
      author: `Author ${seq % 50}`,
      isbn: `cap-${source}-${seq}`,
      publicationYear: 1900 + (seq % 120),
      createdAt: stamp,
      updatedAt: stamp,
      ...extra,
    };
  };
  const profile = async (count: number, run: (i: number) => Promise<unknown>): Promise<LoadProfile> => {
    meter.take();
    for (let i = 0; i < count; i++) await run(i);
    return profileOf(model, meter.take(), count);
  };

  const created: Book[] = [];
  const create = await profile(requests, async () => created.push(await store.create(newBook())));
  const pick = (i: number) => created[(i * 7919) % created.length] as Book;
  const get = await profile(requests, (i) => store.get(pick(i).id));
  const patch = await profile(requests, (i) =>
    store.update(pick(i).id, (book) => ({ ...book, title: `Patched ${i}` })),
  );
  const replace = await profile(requests, (i) =>
    store.update(pick(i).id, (book) => ({
      ...book,
      title: `Replaced ${i}`,
      publicationYear: book.publicationYear + 1,
    })),
  );
  const list = await profile(Math.max(8, requests / 8), async () => {
    let n = 0;
    for await (const _ of store.iterate({}, { limit: 20 })) if (++n >= 20) break;
  });
  const filtered = await profile(Math.max(8, requests / 8), async (i) => {
    for await (const _ of store.iterate({ author: `Author ${i % 50}`, year: 1900 + (i % 120) }, { limit: 20 })) {
      // drained: the handler streams every match of the page
    }
  });
  const oneYear = await profile(requests, async () =>
    created.push(await store.create(newBook({ publicationYear: 1999 }))),
  );
  const deleted = await profile(requests, async (i) => {
    await store.delete((created[i] as Book).id);
  });

  // The load tool's cycle: create, read, patch, filtered list, replace, and a delete every other cycle.
  const loadMix = mixOf([
    [create, 1],
    [get, 1],
    [patch, 1],
    [filtered, 1],
    [replace, 1],
    [deleted, 0.5],
  ]);
  const rows: CapacityRow[] = [
    ['POST /api/books', create],
    ['GET /api/books/{id}', get],
    ['PATCH /api/books/{id}', patch],
    ['PUT /api/books/{id} (year changed)', replace],
    ['DELETE /api/books/{id}', deleted],
    ['GET /api/books?limit=20', list],
    ['GET /api/books?author=…&year=…&limit=20', filtered],
    ['POST /api/books, all of one publication year (bulk import)', oneYear],
    ["the load tool's mix", loadMix],
  ].map(([scenario, load]) => ({ scenario: scenario as string, ceiling: ceilingOf(load as LoadProfile) }));
  return { source, requestsPerScenario: requests, rows };
};

const fixed = (value: number) => (Number.isFinite(value) ? Math.floor(value).toLocaleString('en-US') : 'unbounded');

/** Old layout beside new, with the goals; Markdown for docs/benchmarks.md. */
export const renderCapacity = (current: CapacityResults, baseline: CapacityResults | undefined): string => {
  const old = new Map(baseline?.rows.map((row) => [row.scenario, row.ceiling]));
  const rows = current.rows.map(({ scenario, ceiling }) => {
    const before = old.get(scenario);
    const goal = CAPACITY_GOALS[scenario];
    const met =
      goal === undefined
        ? ''
        : `${goal.toLocaleString('en-US')} ${ceiling.requestsPerSecond >= goal && ceiling.maxWriteShare <= 1 / 8 ? '✓' : '✗'}`;
    return [
      scenario,
      before ? fixed(before.requestsPerSecond) : '–',
      before ? `${(before.maxWriteShare * 100).toFixed(0)} %` : '–',
      fixed(ceiling.requestsPerSecond),
      `${(ceiling.maxWriteShare * 100).toFixed(1)} %`,
      ceiling.limitedBy,
      `${before ? before.callsPerRequest.toFixed(2) : '–'} → ${ceiling.callsPerRequest.toFixed(2)}`,
      met,
    ];
  });
  const table = markdownTable(
    [
      'Scenario',
      'Old layout: req/s',
      'Old: hottest key share',
      'New layout: req/s',
      'New: hottest key share',
      'Limited by (new)',
      'DynamoDB calls per request (old → new)',
      'Goal',
    ],
    rows,
    ['left', 'right', 'right', 'right', 'right', 'left', 'right', 'right'],
  );
  return [
    `Ceilings from ${current.requestsPerScenario} metered requests per scenario: the request rate at which the hottest partition key reaches 1,000 WCU/s or 3,000 RCU/s, or one item 1,000 WCU/s (DynamoDB's per-partition limits; it never splits an item). Old layout: ${baseline ? `${baseline.source}, recorded by this same model (bench/capacity-baseline.json)` : 'not recorded'}. Hottest key share: that key's part of all write units (table and index keys).`,
    '',
    table,
  ].join('\n');
};

export const readCapacityBaseline = (root: string): CapacityResults | undefined => {
  try {
    return JSON.parse(readFileSync(join(root, 'bench/capacity-baseline.json'), 'utf8')) as CapacityResults;
  } catch {
    return undefined;
  }
};

/** `tsx bench/capacity.ts <source> [requests]`: the JSON of one run, to record a baseline from another layout's code. */
if (process.argv[1]?.endsWith('capacity.ts') && process.argv[2] !== undefined) {
  const database = await startDynamoDbLocal();
  const meter = await startDynamoMeter(database.endpoint);
  try {
    await ensureTables(createDynamoClient(database.endpoint), { books: 'capacity-books', auth: 'capacity-auth' });
    const results = await measureCapacity(meter, 'capacity-books', Number(process.argv[3] ?? 256), process.argv[2]);
    console.log(JSON.stringify(results, null, 2));
  } finally {
    await meter.close();
    await database.stop();
  }
}
