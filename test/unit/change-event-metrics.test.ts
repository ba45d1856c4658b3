import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { captureLogs } from '../support/log-capture';

// Metrics on: the count must show as an EMF line.
Object.assign(process.env, { POWERTOOLS_METRICS_DISABLED: 'false' });
const { countUnpublishedChangeEvents } = await import('../../shared/observability/metrics');

const logs = captureLogs();
beforeEach(() => logs.clear());
afterAll(() => logs.restore());

const emfLines = () => logs.lines.filter((line) => '_aws' in line);

describe('the count of change events that did not reach EventBridge', () => {
  it('is written for each invocation as one EMF line, zero included, so the alarm sees the function ran', () => {
    countUnpublishedChangeEvents(0);
    countUnpublishedChangeEvents(3);
    expect(emfLines().map((line) => line.UnpublishedChangeEvents)).toEqual([0, 3]);
  });
});
