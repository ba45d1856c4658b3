import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type DynamoMeter, startDynamoMeter } from '../../bench/dynamodb-meter';
import { type FilteredMeasure, filteredRows, measureFilteredPages } from '../../bench/page-floor';

/** Issue 39's filtered pages through the metering proxy, before and after the author keys move. */
describe('filtered pages at the floor', () => {
  let meter: DynamoMeter;
  let measures: FilteredMeasure[];
  const measure = (filter: string) => measures.find((each) => each.filter === filter) as FilteredMeasure;

  beforeAll(async () => {
    meter = await startDynamoMeter(inject('dynamoEndpoint'));
    // 500 books: the author has 100 of them, 25 a year; the year 2001 about 29.
    measures = await measureFilteredPages(inject('dynamoEndpoint'), meter, 500, `floor-filters-${randomUUID()}`);
  }, 120_000);
  afterAll(() => meter.close());

  it('reads every page filtered by author, and by author and year, with at most 2 calls once the keys moved', () => {
    for (const filter of ['by author', 'by author and year']) {
      const { after } = measure(filter);
      expect(after.calls.length, filter).toBeGreaterThan(1);
      expect(Math.max(...after.calls), filter).toBeLessThanOrEqual(2);
    }
    expect(measure('by author').matches).toBe(100);
    expect(measure('by author and year').matches).toBe(25);
  });

  it('read 16 keys or more per page before, with the same books', () => {
    for (const filter of ['by author', 'by author and year']) {
      expect(Math.min(...measure(filter).before.calls), filter).toBeGreaterThanOrEqual(16);
    }
  });

  it('keeps the year-only filter no worse than before', () => {
    const { before, after } = measure('by year alone');
    expect(after.calls).toStrictEqual(before.calls);
  });

  it("adds one read of the id-blocks item to a new container's first page filtered by author, and only to that", () => {
    expect(measure('by author').after.first).toBe(3);
    expect(measure('by author and year').after.first).toBe(3);
    expect(measure('by year alone').after.first).toBe(measure('by year alone').after.calls[0]);
  });

  it('renders a median, a most and a first page per filter', () => {
    const rows = filteredRows(measures);
    expect(rows).toHaveLength(9);
    expect(rows[0]?.measure).toBe('calls per page of 20 by author (100 books, 5 pages), median');
  });
});
