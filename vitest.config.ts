import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Projects that need a database get Dynoxide from the shared global setup; the others start none.
 * Each project but soak has its script, `npm run test:<name>` (CONTRIBUTING.md lists them).
 */
const withDynamoDb = { globalSetup: ['test/support/global-setup.ts'] };

/**
 * The soak rounds: large catalogues, seeded load, the fuzzers, the timing statistics, the page cost over
 * twenty servers. They need only Node (and Dynoxide) but are long (docs/testing.md gives their share of the
 * time), so `npm test` leaves them to `npm run test:soak`, which .ci/run runs after it. Each stays in
 * its layer's folder.
 */
const SOAK = [
  'test/e2e/streamed-list.test.ts',
  'test/integration/book-store-paging.test.ts',
  'test/reliability/workload.test.ts',
  'test/reliability/load-tool.test.ts',
  'test/reliability/fuzz-http.test.ts',
  'test/reliability/fuzz-query.test.ts',
  'test/reliability/fuzz.test.ts',
  'test/integration/enumeration-timing.test.ts',
  'test/e2e/page-cost.test.ts',
  'test/e2e/fair-admission.test.ts',
];

const project = (name: string, extra: Record<string, unknown> = {}) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`], exclude: [...configDefaults.exclude, ...SOAK], ...extra },
});

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Dots, the failures and the summary; the JSON report is what .ci/run reads for its closing line.
    reporters: ['dot', 'json'],
    outputFile: { json: '.test-results/results.json' },
    // A passing test's console output is not shown; test/support/quiet-output.ts files the rest.
    silent: 'passed-only',
    setupFiles: ['test/support/quiet-output.ts'],
    projects: [
      // One module graph for all unit files (no fresh one per file): 4 s instead of 16 s, as the
      // unit tests keep no state between files (no vi.mock, no module-level env).
      project('unit', { isolate: false }),
      project('integration', withDynamoDb),
      project('e2e', withDynamoDb),
      project('reliability', withDynamoDb),
      project('bench', withDynamoDb),
      project('infra'),
      project('static'),
      { extends: true as const, test: { name: 'soak', include: SOAK, ...withDynamoDb } },
    ],
  },
});
