import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type ChangeEventsResult,
  changeEventCosts,
  measureChangeEvents,
  renderChangeEvents,
} from '../../bench/change-events';
import { type DynamoMeter, startDynamoMeter } from '../../bench/dynamodb-meter';

const CHANGES = 20;

/** `npm run bench`'s change-events step at a tiny scale against the test Dynoxide: its figures, not their speed. */
describe('npm run bench, the change-events step', () => {
  let meter: DynamoMeter;
  let result: ChangeEventsResult;
  const progress: string[] = [];

  beforeAll(async () => {
    const endpoint = inject('dynamoEndpoint');
    meter = await startDynamoMeter(endpoint);
    const suffix = randomUUID().slice(0, 8);
    result = await measureChangeEvents(endpoint, meter, CHANGES, (line) => progress.push(line), {
      books: `bench-events-books-${suffix}`,
      auth: `bench-events-auth-${suffix}`,
    });
  }, 60_000);
  afterAll(async () => {
    await meter?.close();
  });

  it('receives one event per change made, no more, no fewer', () => {
    expect(result.changes).toBe(CHANGES);
    expect(result.eventsReceived).toBe(CHANGES);
    expect(result.eventsPerSecond).toBeGreaterThan(0);
  });

  it('counts the stream records and write units each create costs, and the largest event', () => {
    // The book item and its ISBN claim at least; the id blocks item once per block reserved.
    expect(result.recordsPerChange).toBeGreaterThanOrEqual(2);
    expect(result.recordsPerChange).toBeLessThan(10);
    expect(result.writeUnitsPerChange).toBeGreaterThanOrEqual(2);
    expect(result.mapMicrosPerRecord).toBeGreaterThan(0);
    expect(result.eventBytes).toBeGreaterThan(100);
    expect(result.eventBytes).toBeLessThan(64 * 1024);
  });

  it('models a positive cost per million creates for each billed part, and renders every row', () => {
    const costs = changeEventCosts(result);
    for (const [part, dollars] of Object.entries(costs)) expect(dollars, part).toBeGreaterThan(0);
    expect(costs.lambdaSingle).toBeGreaterThan(costs.lambdaFull);
    const rows = renderChangeEvents(result)
      .split('\n')
      .filter((line) => /^\| .*\| \$\d+\.\d\d \|$/.test(line));
    expect(rows).toHaveLength(5);
    expect(renderChangeEvents(result)).toContain(
      `${CHANGES} creates written with the pipeline stopped, then their ${CHANGES} events`,
    );
  });
});
