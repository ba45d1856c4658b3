import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { areaScores, MUTATION_GOALS, type MutationReport } from './mutation-score';

const AREAS = Object.keys(MUTATION_GOALS);

const HELP = `Usage: npm run test:mutation -- [area ...] [-- stryker options]

Mutation testing of shared/ with Stryker: every small plausible bug Stryker can make in the chosen
folders is run against the fast tests (vitest.stryker.config.ts); a mutant no test fails on
"survives". Prints progress and the score per file, then each area's score against its goal
(mutation-goals.json; the run fails when one area falls short); writes an HTML and a JSON report
and the incremental file (a rerun after a small change only tests what changed) to
reports/mutation/<areas>/.

Areas: ${AREAS.join(', ')} (folders of shared/; default: all four).
Stryker needs Node 22 or later; on an older Node this runs it on Node 24 fetched from the npm
registry (package node-linux-<arch>), which the project's code also targets.

Options:
  --ci               areas auth and books, as CI runs them (the same as naming them)
  -h, --help         this text
  -- <options>       passed to "stryker run", e.g. --mutate shared/books/cursor.ts, --concurrency 1,
                     --force (ignore the incremental file)

Examples:
  npm run test:mutation
  npm run test:mutation -- books
  npm run test:mutation -- books -- --mutate shared/books/cursor.ts
`;

/** The Node that runs Stryker when this one is too old: the Lambda runtime's major version. */
const NODE_PACKAGE_VERSION = '24.21.0';
const MIN_NODE_MAJOR = 22;

class UsageError extends Error {}

const main = async () => {
  const argv = process.argv.slice(2);
  const terminator = argv.indexOf('--');
  const strykerArgs = terminator < 0 ? [] : argv.slice(terminator + 1);
  const { values, positionals } = parseArgs({
    args: terminator < 0 ? argv : argv.slice(0, terminator),
    options: {
      ci: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const areas = values.ci ? ['auth', 'books'] : positionals.length > 0 ? positionals : [...AREAS];
  const unknown = areas.filter((area) => !AREAS.includes(area));
  if (unknown.length > 0) throw new UsageError(`unknown area ${unknown.join(', ')}; known: ${AREAS.join(', ')}`);

  const corePackage = createRequire(import.meta.url).resolve('@stryker-mutator/core/package.json');
  const stryker = join(dirname(corePackage), 'bin', 'stryker.js');
  const runStryker = ['run', ...strykerArgs];
  const recentEnough = Number(process.versions.node.split('.')[0]) >= MIN_NODE_MAJOR;
  if (!recentEnough) {
    console.error(`Node ${process.versions.node} is too old for Stryker; running it on Node ${NODE_PACKAGE_VERSION}.`);
  }
  const [command, args] = recentEnough
    ? [process.execPath, [stryker, ...runStryker]]
    : [
        'npx',
        [
          '--yes',
          '--package',
          `node-linux-${process.arch}@${NODE_PACKAGE_VERSION}`,
          '--',
          'node',
          stryker,
          ...runStryker,
        ],
      ];
  console.error(`Mutating shared/{${areas.join(',')}}; reports in reports/mutation/${areas.join('-')}/`);
  const child = spawn(command, args, {
    stdio: 'inherit',
    env: { ...process.env, MUTATION_AREAS: areas.join(',') },
  });
  const strykerExit = await new Promise<number>((done) => child.on('exit', (code) => done(code ?? 1)));
  process.exitCode = strykerExit === 0 && areasMeetTheirGoals(areas) ? 0 : strykerExit || 1;
};

/** Prints each area's score against its goal; false when one falls short. */
const areasMeetTheirGoals = (areas: string[]): boolean => {
  const report = `reports/mutation/${areas.join('-')}/mutation.json`;
  if (!existsSync(report)) {
    console.error(`test:mutation: no report at ${report}`);
    return false;
  }
  const scores = areaScores(JSON.parse(readFileSync(report, 'utf8')) as MutationReport, areas);
  for (const { area, goal, score, detected, undetected } of scores) {
    const verdict = score >= goal ? 'meets' : 'BELOW';
    console.log(
      `shared/${area}: ${score.toFixed(2)} % (${detected} detected, ${undetected} not): ${verdict} its goal of ${goal} %`,
    );
  }
  return scores.every(({ score, goal }) => score >= goal);
};

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`test:mutation: ${error.message}\n\n${HELP}`);
    process.exitCode = 2;
    return;
  }
  throw error;
});
