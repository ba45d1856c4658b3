import { defineConfig } from 'vitest/config';

/** Projects that need DynamoDB Local get it from the shared global setup; the others never start Java. */
const withDynamoDb = { globalSetup: ['test/support/global-setup.ts'] };

const project = (name: string, extra: Record<string, unknown> = {}) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`], ...extra },
});

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report is what .ci/run reads for its closing "N passed, M failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: '.test-results/results.json' },
    projects: [
      project('unit'),
      project('integration', withDynamoDb),
      project('e2e', withDynamoDb),
      project('reliability', withDynamoDb),
      project('bench', withDynamoDb),
      project('infra'),
      project('static'),
    ],
  },
});
