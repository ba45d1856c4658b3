import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** One entry of releases.json: a released version and the commit it was cut from. */
export interface Release {
  version: string;
  commit: string;
  /** The books table's schemaVersion that release's code reads and writes. */
  schemaVersion: number;
}

const ROOT = resolve(import.meta.dirname, '../..');

/** The newest release recorded in releases.json (the first entry). */
export const lastRelease = (): Release => {
  const { releases } = JSON.parse(readFileSync(join(ROOT, 'releases.json'), 'utf8')) as { releases: Release[] };
  const [last] = releases;
  if (!last) throw new Error('releases.json records no release');
  return last;
};

/**
 * The release's code with its own node_modules, under .tools/releases/<commit>: `git archive` of the
 * recorded commit (no worktree registered in the shared repository), then `npm ci`. Built once per
 * commit, in a folder of this process's own (two runs at once never share one), renamed into place
 * only when complete, so a half-built copy is never used.
 */
export const materializeRelease = (release: Release, log: (line: string) => void = console.error): string => {
  const target = join(ROOT, '.tools', 'releases', release.commit);
  const complete = () => existsSync(join(target, 'node_modules', '.package-lock.json'));
  if (complete()) return target;
  const building = `${target}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  try {
    log(`Materializing release ${release.version} (${release.commit.slice(0, 7)}) in ${target} ...`);
    // safe.directory: CI's container runs as root on a checkout another user owns.
    const tar = `${building}.tar`;
    const git = ['-c', `safe.directory=${ROOT}`, 'archive', '--format=tar', '-o', tar, release.commit];
    execFileSync('git', git, { cwd: ROOT, stdio: 'inherit' });
    execFileSync('tar', ['-xf', tar, '-C', building], { stdio: 'inherit' });
    rmSync(tar);
    // Without its package.json here, npm would climb to this checkout's and reinstall that instead.
    if (!existsSync(join(building, 'package.json'))) throw new Error(`no package.json in ${release.commit}`);
    log('npm ci in the release (once per commit) ...');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: building, stdio: 'inherit' });
    if (!complete()) {
      rmSync(target, { recursive: true, force: true });
      renameSync(building, target);
    }
    return target;
  } finally {
    rmSync(building, { recursive: true, force: true });
    rmSync(`${building}.tar`, { force: true });
  }
};
