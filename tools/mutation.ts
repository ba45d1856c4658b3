import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { changedLinesSince, mutateEntries } from './changed-lines';
import { areaPath, areaScores, MUTATION_GOALS, type MutationReport } from './mutation-score';
import { survivorsOutsideEquivalents } from './mutation-survivors';

const AREAS = Object.keys(MUTATION_GOALS);

const HELP = `Usage: npm run test:mutation -- [area ...] [--changed [--since REF]] [-- stryker options]

Mutation testing of shared/ and functions/ with Stryker: every small plausible bug Stryker can make
in the chosen areas is run against the fast tests (vitest.stryker.config.ts); a mutant no test fails
on "survives". Prints progress and the score per file, then each area's score against its goal
(mutation-goals.json; the run fails when one area falls short); writes an HTML and a JSON report
and the incremental file (a rerun after a small change only tests what changed) to
reports/mutation/<areas>/.

With --changed, only the lines changed since REF (default: the last release's commit, releases.json)
in every area are mutated, and the run also fails on a surviving mutant that mutation-equivalents.json
does not list with its reason. Reports go to reports/mutation/changed/.

Areas: ${AREAS.join(', ')} (default: all).
Stryker needs Node 22 or later; on an older Node this runs it on Node 24 fetched from the npm
registry (package node-linux-<arch>), which the project's code also targets.

Options:
  --ci               what CI runs: --changed over every area
  --changed          mutate only the lines changed since --since
  --since REF        the base commit of --changed (default: releases.json's last commit)
  -h, --help         this text
  -- <options>       passed to "stryker run", e.g. --mutate shared/books/cursor.ts, --concurrency 1,
                     --force (ignore the incremental file)

Examples:
  npm run test:mutation
  npm run test:mutation -- books
  npm run test:mutation -- books -- --mutate shared/books/cursor.ts
  npm run test:mutation -- --changed --since main
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
      changed: { type: 'boolean', default: false },
      since: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const changed = values.ci || values.changed;
  const areas = positionals.length > 0 ? positionals : [...AREAS];
  const unknown = areas.filter((area) => !AREAS.includes(area));
  if (unknown.length > 0) throw new UsageError(`unknown area ${unknown.join(', ')}; known: ${AREAS.join(', ')}`);
  const env: NodeJS.ProcessEnv = { ...process.env, MUTATION_AREAS: areas.join(',') };
  if (changed) {
    const base = values.since ?? lastReleaseCommit();
    const files = changedLinesSince(base, areas.map(areaPath));
    const entries = mutateEntries(files);
    console.error(`Mutating ${entries.length} changed line ranges in ${files.length} files since ${base}`);
    if (entries.length === 0) return;
    env.MUTATION_CHANGED_LINES = JSON.stringify(entries);
  }

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
  const reportDir = `reports/mutation/${changed ? 'changed' : areas.join('-')}`;
  console.error(`Mutating ${areas.join(', ')}; reports in ${reportDir}/`);
  const child = spawn(command, args, { stdio: 'inherit', env });
  const strykerExit = await new Promise<number>((done) => child.on('exit', (code) => done(code ?? 1)));
  const report = readReport(`${reportDir}/mutation.json`);
  const passed = strykerExit === 0 && report !== undefined && areasMeetTheirGoals(report, areas);
  const unexplained = changed && report ? survivorsOutsideEquivalents(report) : [];
  for (const survivor of unexplained) console.log(`survivor not listed in mutation-equivalents.json: ${survivor}`);
  process.exitCode = passed && unexplained.length === 0 ? 0 : strykerExit || 1;
};

/** The last release's commit, recorded when it was cut (releases.json, newest last). */
const lastReleaseCommit = (): string => {
  const { releases } = JSON.parse(readFileSync('releases.json', 'utf8')) as { releases: { commit: string }[] };
  const last = releases.at(-1);
  if (!last) throw new UsageError('releases.json records no release: pass --since REF');
  return last.commit;
};

const readReport = (path: string): MutationReport | undefined => {
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as MutationReport;
  console.error(`test:mutation: no report at ${path}`);
  return undefined;
};

/** Prints each area's score against its goal; false when one falls short. */
const areasMeetTheirGoals = (report: MutationReport, areas: string[]): boolean => {
  const scores = areaScores(report, areas);
  for (const { area, goal, score, detected, undetected } of scores) {
    const verdict = score >= goal ? 'meets' : 'BELOW';
    console.log(
      `${areaPath(area)}: ${score.toFixed(2)} % (${detected} detected, ${undetected} not): ${verdict} its goal of ${goal} %`,
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
