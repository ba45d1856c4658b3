import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dataLossBetween, type Template } from './data-loss';
import { lastRelease, materializeRelease } from './release';

const HELP = `Usage: npm run test:template-diff [-- --help]

Synthesizes the last release's stack (releases.json; its code from the recorded commit, built once
under .tools/releases/<commit>, its templates cached beside it) and this code's, offline, and
compares each stack's templates with cloudformation-diff, the library behind \`cdk diff\`. Fails,
naming each one, when deploying this code over the release would replace or delete a resource that
holds data (tables, queues, event archives, buckets, log groups, keys, secrets ...); in-place updates
pass. Exit 0 when nothing holding data is lost.
`;

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The code in `cwd` synthesized into `out` as `cdk synth` does (its app with cdk.json's context),
 * offline and without bundling the functions, whose code holds no data: the CLI refuses that
 * context key, so the app runs directly with the environment the CLI would give it.
 */
const synth = (cwd: string, out: string) => {
  const { context = {} } = JSON.parse(readFileSync(join(cwd, 'cdk.json'), 'utf8')) as { context?: object };
  execFileSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
    cwd,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      CDK_OUTDIR: out,
      CDK_CONTEXT_JSON: JSON.stringify({ ...context, 'aws:cdk:bundling-stacks': [] }),
      NODE_NO_WARNINGS: '1',
    },
  });
};

/** Each stack's template in a cloud assembly, by file name (one per stack). */
const templatesIn = (out: string): Map<string, Template> =>
  new Map(
    readdirSync(out)
      .filter((name) => name.endsWith('.template.json'))
      .map((name) => [name, JSON.parse(readFileSync(join(out, name), 'utf8')) as Template]),
  );

const main = () => {
  const release = lastRelease();
  const releaseDir = materializeRelease(release);
  const releaseOut = `${releaseDir}.cdk.out`;
  if (!existsSync(releaseOut)) {
    console.error(`Synthesizing release ${release.version} (once per commit) ...`);
    const building = mkdtempSync(join(tmpdir(), 'release-synth-'));
    synth(releaseDir, building);
    renameSync(building, releaseOut);
  }
  const currentOut = mkdtempSync(join(tmpdir(), 'current-synth-'));
  try {
    console.error('Synthesizing this code ...');
    synth(ROOT, currentOut);
    const previous = templatesIn(releaseOut);
    const next = templatesIn(currentOut);
    const losses = [...previous].flatMap(([name, template]) =>
      dataLossBetween(template, next.get(name) ?? { Resources: {} }).map((loss) => `${name}: ${loss}`),
    );
    for (const loss of losses) console.error(`  ${loss}`);
    console.log(
      losses.length === 0
        ? `No resource holding data is replaced or deleted against release ${release.version} (${previous.size} templates compared).`
        : `${losses.length} resources holding data would be replaced or deleted against release ${release.version}.`,
    );
    return losses.length === 0;
  } finally {
    rmSync(currentOut, { recursive: true, force: true });
  }
};

if (process.argv.includes('--help') || process.argv.includes('-h')) console.log(HELP);
else {
  try {
    process.exitCode = main() ? 0 : 1;
  } catch (error) {
    // A synth that failed has printed its own reason above.
    console.error(`template comparison could not run: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
