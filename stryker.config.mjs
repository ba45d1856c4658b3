// @ts-check
/**
 * Mutation testing of shared/ (`npm run test:mutation`, docs/testing.md). MUTATION_AREAS picks the
 * folders of shared/ to mutate (comma-separated; default all four); each set of areas keeps its own
 * reports and incremental file under reports/mutation/<areas>/, so a per-area run does not throw away
 * another area's results. While working on one file, narrow it further:
 *   MUTATION_AREAS=books npm run test:mutation -- --mutate shared/books/cursor.ts
 */
import { readFileSync } from 'node:fs';

/** The mutation score each area must reach (also read by tools/mutation.ts, which checks each area). */
const GOALS = JSON.parse(readFileSync(new URL('./mutation-goals.json', import.meta.url), 'utf8'));
const AREAS = Object.keys(GOALS);
const areas = (process.env.MUTATION_AREAS ?? AREAS.join(','))
  .split(',')
  .map((area) => area.trim())
  .filter(Boolean);
const unknown = areas.filter((area) => !AREAS.includes(area));
if (unknown.length > 0)
  throw new Error(`MUTATION_AREAS: unknown area ${unknown.join(', ')}; known: ${AREAS.join(', ')}`);
const reportDir = `reports/mutation/${areas.join('-')}`;
// vitest.stryker.config.ts, loaded in Stryker's test runner processes, reads the same choice.
process.env.MUTATION_AREAS = areas.join(',');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.stryker.json',
  coverageAnalysis: 'perTest',
  // types.ts files hold declarations only: nothing a mutant could change at run time.
  mutate: [...areas.map((area) => `shared/${area}/**/*.ts`), '!shared/**/types.ts'],
  reporters: ['progress', 'clear-text', 'html', 'json'],
  htmlReporter: { fileName: `${reportDir}/index.html` },
  jsonReporter: { fileName: `${reportDir}/mutation.json` },
  incremental: true,
  incrementalFile: `${reportDir}/incremental.json`,
  // The machines have two cores; more runners only queue behind each other.
  concurrency: 2,
  // Stryker breaks on the overall score only; tools/mutation.ts then holds each area to its own goal.
  thresholds: { high: 85, low: 75, break: Math.min(...areas.map((area) => GOALS[area])) },
  // The sandbox copies the working tree: leave out what other tools install or write into it (the
  // Python tools' virtualenvs hold symlinked directories Stryker cannot copy).
  ignorePatterns: ['.tools', '.schemathesis', '.aws-sam', '.ci/.node24', '.bench', '.data', 'cdk.out', '.test-results'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
