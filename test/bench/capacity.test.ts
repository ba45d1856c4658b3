import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  AUTHOR_PAGES,
  AUTHOR_YEAR_PAGES,
  BULK_AUTHOR_IMPORT,
  BULK_AUTHOR_IMPORT_INDEX_ONCE,
  CAPACITY_GOALS,
  type CapacityResults,
  measureCapacity,
  renderCapacity,
} from '../../bench/capacity';
import { type DynamoMeter, startDynamoMeter } from '../../bench/dynamodb-meter';
import { createTestTables } from '../support/dynamodb';

/** The capacity model's verdict on the layout, from metered traffic on Dynoxide. */
describe('throughput ceilings of the data model', () => {
  let meter: DynamoMeter;
  let results: CapacityResults;
  const row = (scenario: string) => results.rows.find((r) => r.scenario === scenario)?.ceiling;

  beforeAll(async () => {
    meter = await startDynamoMeter(inject('dynamoEndpoint'));
    const tables = await createTestTables();
    results = await measureCapacity(meter, tables.names.books, 64, 'test');
  }, 120_000);
  afterAll(() => meter.close());

  it('meets every goal, with no key above 1/8 of the write load', () => {
    for (const [scenario, goal] of Object.entries(CAPACITY_GOALS)) {
      const ceiling = row(scenario);
      expect(ceiling?.requestsPerSecond, scenario).toBeGreaterThanOrEqual(goal);
      expect(ceiling?.maxWriteShare, scenario).toBeLessThanOrEqual(1 / 8);
    }
  });

  it('makes a create average at most 1.1 DynamoDB calls, and reads a book with one', () => {
    expect(row('POST /api/books')?.callsPerRequest).toBeLessThanOrEqual(1.1);
    expect(row('GET /api/books/{id}')?.callsPerRequest).toBe(1);
  });

  it('keeps creates at 10,000/s with no partition key above 5 % of their writes', () => {
    expect(row('POST /api/books')?.requestsPerSecond).toBeGreaterThanOrEqual(10_000);
    expect(row('POST /api/books')?.maxWriteShare).toBeLessThanOrEqual(0.05);
  });

  it('reads the first page of 20 with one query, and pages spread over the catalogue outrun the first page', () => {
    const first = row('GET /api/books?limit=20 (the first page)');
    const anywhere = row('GET /api/books?limit=20&cursor=… (pages across the catalogue)');
    expect(first?.callsPerRequest).toBe(1);
    // The model's catalogue is what 40 busy instances leave: each range partly filled, so a page
    // crosses more boundaries than in a dense one (there, at most 2: test/e2e/page-cost.test.ts).
    expect(anywhere?.callsPerRequest).toBeLessThanOrEqual(3);
    expect(anywhere?.requestsPerSecond).toBeGreaterThan(first?.requestsPerSecond ?? Number.POSITIVE_INFINITY);
  });

  it("imports one author's books at 1,000/s, limited by that author's two index keys", () => {
    const bulk = row(BULK_AUTHOR_IMPORT);
    expect(bulk?.requestsPerSecond).toBeGreaterThanOrEqual(1_000);
    expect(bulk?.limitedBy).toMatch(/^writes on byAuthor(Shard|Year) authorShard=[01]#bulk author$/);
    // The model's doubling of a transaction's index copies is what holds it at 1,000/s: charged once, twice that.
    expect(row(BULK_AUTHOR_IMPORT_INDEX_ONCE)?.requestsPerSecond).toBeGreaterThanOrEqual(2 * 1_000);
  });

  it('reads a page filtered by author, or by author and year, with at most 2 calls', () => {
    for (const scenario of [AUTHOR_PAGES, AUTHOR_YEAR_PAGES, 'GET /api/books?author=…&year=…&limit=20']) {
      expect(row(scenario)?.callsPerRequest, scenario).toBeLessThanOrEqual(2);
    }
  });

  it('renders each scenario with its ceiling, its hottest key and its goal met', () => {
    const table = renderCapacity(results);
    const cells = (scenario: string) =>
      table
        .split('\n')
        .map((line) => line.split('|').map((cell) => cell.trim()))
        .find((row) => row[1] === scenario)
        ?.slice(1, -1);
    const create = row('POST /api/books');
    expect(cells('POST /api/books')).toStrictEqual([
      'POST /api/books',
      Math.floor(create?.requestsPerSecond ?? 0).toLocaleString('en-US'),
      `${((create?.maxWriteShare ?? 1) * 100).toFixed(1)} %`,
      create?.limitedBy,
      create?.callsPerRequest.toFixed(2),
      '10,000 ✓',
    ]);
    expect(cells('DELETE /api/books/{id}')?.at(-1)).toBe(''); // no goal set
  });
});
