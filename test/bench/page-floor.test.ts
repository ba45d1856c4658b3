import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type DynamoMeter, startDynamoMeter } from '../../bench/dynamodb-meter';
import { type FilteredMeasure, filteredRows, measureFilteredPages } from '../../bench/page-floor';

/** Filtered pages through the metering proxy. */
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

  it('reads every page filtered by author, and by author and year, with at most 2 calls', () => {
    for (const filter of ['by author', 'by author and year']) {
      const { pages } = measure(filter);
      expect(pages.calls.length, filter).toBeGreaterThan(1);
      expect(Math.max(...pages.calls), filter).toBeLessThanOrEqual(2);
    }
    expect(measure('by author').matches).toBe(100);
    expect(measure('by author and year').matches).toBe(25);
  });

  it("adds one read of the id-blocks item (the schema check) to a new container's first page, whatever the filter", () => {
    expect(measure('by author').pages.first).toBe(3);
    expect(measure('by author and year').pages.first).toBe(3);
    expect(measure('by year alone').pages.first).toBe((measure('by year alone').pages.calls[0] as number) + 1);
  });

  it('renders a median, a most and a first page per filter', () => {
    const rows = filteredRows(measures);
    expect(rows).toHaveLength(9);
    expect(rows[0]?.measure).toBe('calls per page of 20 by author (100 books, 5 pages), median');
  });
});
