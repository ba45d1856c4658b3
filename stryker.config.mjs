// @ts-check
/**
 * Mutation testing of shared/ and functions/ (`npm run test:mutation`, docs/testing.md). MUTATION_AREAS
 * picks the areas (comma-separated; default all); each set keeps its own reports and incremental file
 * under reports/mutation/<areas>/. MUTATION_CHANGED_LINES (set by tools/mutation.ts --changed) narrows
 * the run to the lines changed since a base commit, one `path:start-end` entry per line range.
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
const changedLines = process.env.MUTATION_CHANGED_LINES ? JSON.parse(process.env.MUTATION_CHANGED_LINES) : undefined;
const reportDir = `reports/mutation/${changedLines ? 'changed' : areas.join('-')}`;
/** Mirrors areaPath in tools/mutation-score.ts (this file is plain JavaScript, read by Stryker itself). */
const areaGlob = (area) =>
  area === 'functions' ? 'functions/**/*.ts' : area === 'config' ? 'shared/config.ts' : `shared/${area}/**/*.ts`;
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
  mutate: changedLines ?? [...areas.map(areaGlob), '!shared/**/types.ts'],
  reporters: ['progress', 'clear-text', 'html', 'json'],
  htmlReporter: { fileName: `${reportDir}/index.html` },
  jsonReporter: { fileName: `${reportDir}/mutation.json` },
  // A changed-lines run is small and starts clean; a full one reuses what the last run found.
  incremental: !changedLines,
  // A static mutant (a constant evaluated at import) reruns every test: seconds each. CI's changed-lines
  // run skips them to stay within its time; a full run (no --changed) still tests them.
  ignoreStatic: Boolean(changedLines),
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
