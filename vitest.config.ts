import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

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

/**
 * The longest files of `npm test` (docs/testing.md names them), started first: Vitest otherwise runs
 * the projects in name order, so the static checks' 25 s ran alone at the end. A fresh clone (CI)
 * has no cache of durations to order by.
 */
export const LONGEST_FIRST = [
  'test/static/static-checks.test.ts',
  'test/e2e/verify-deployment.test.ts',
  'test/e2e/change-events.test.ts',
  'test/e2e/npm-start.test.ts',
  'test/e2e/roles.test.ts',
  'test/infra/list-delivery.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((path) => file.moduleId.endsWith(path));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

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
    sequence: { sequencer: LongestFirst },
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
