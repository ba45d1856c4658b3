import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * Which Dynoxide binary runs: DYNOXIDE_BIN when set, else the npm package on linux-x64 (an optional
 * dependency `npm ci` installs, a static binary with no install script), else the crate built once
 * with cargo into node_modules/.cache. Both pinned to the same Dynoxide release.
 */

/** Dynoxide 1.2.1, as the npm package in package.json: the crate numbers its versions apart (its VERSION file names the release). */
const DYNOXIDE_CRATE = { name: 'dynoxide-rs', version: '2.0.1' } as const;
const PLATFORM_PACKAGE = '@dynoxide/linux-x64';

/** No Dynoxide to run here, and no way to build one: the message names what to install. */
export class DynoxideMissingError extends Error {
  override readonly name = 'DynoxideMissingError';
}

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

const fromPackage = (): string | undefined => {
  try {
    const manifest = createRequire(import.meta.url).resolve(`${PLATFORM_PACKAGE}/package.json`);
    const binary = join(dirname(manifest), 'dynoxide');
    return executable(binary) ? binary : undefined;
  } catch {
    return undefined; // not installed: another platform, or npm ci --omit=optional
  }
};

const CACHE = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'node_modules',
  '.cache',
  `${DYNOXIDE_CRATE.name}-${DYNOXIDE_CRATE.version}`,
);
const cachedBinary = (cache: string) => join(cache, 'bin', process.platform === 'win32' ? 'dynoxide.exe' : 'dynoxide');

const hasCargo = (env: NodeJS.ProcessEnv) => spawnSync('cargo', ['--version'], { stdio: 'ignore', env }).status === 0;

/** `cargo install` into a scratch folder renamed into place, so concurrent starts never run half a build. */
const buildWithCargo = async (cache: string, env: NodeJS.ProcessEnv, log: (line: string) => void) => {
  mkdirSync(dirname(cache), { recursive: true });
  const scratch = mkdtempSync(`${cache}-`);
  log(
    `Building Dynoxide (${DYNOXIDE_CRATE.name} ${DYNOXIDE_CRATE.version}) with cargo into ${cache}: once, a few minutes ...`,
  );
  const args = ['install', '--locked', '--root', scratch, DYNOXIDE_CRATE.name, '--version', DYNOXIDE_CRATE.version];
  const status = await new Promise<number | null>((done) => {
    const cargo = spawn('cargo', args, { stdio: ['ignore', 'inherit', 'inherit'], env });
    cargo.once('error', () => done(null));
    cargo.once('exit', done);
  });
  if (status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    throw new DynoxideMissingError(
      `cargo ${args.join(' ')} failed (exit ${status}); Dynoxide needs Rust 1.88 or later. Fix the build, or set DYNOXIDE_BIN to a dynoxide binary, or DYNAMODB_ENDPOINT to a running DynamoDB.`,
    );
  }
  try {
    renameSync(scratch, cache);
  } catch {
    rmSync(scratch, { recursive: true, force: true }); // another start got there first
  }
  log('Dynoxide built.');
};

export interface BinaryOptions {
  env?: NodeJS.ProcessEnv;
  log?: ((line: string) => void) | undefined;
  /** Where the npm package's binary is; tests stand in for a platform it does not serve. */
  packaged?: () => string | undefined;
  /** Where cargo builds it (the default is under node_modules/.cache). */
  cache?: string;
}

/** The path of the Dynoxide binary to run, building it first when only cargo can provide one. */
export const dynoxideBinary = async ({
  env = process.env,
  log = console.log,
  packaged = fromPackage,
  cache = CACHE,
}: BinaryOptions = {}): Promise<string> => {
  const given = env.DYNOXIDE_BIN;
  if (given) {
    if (executable(given)) return given;
    throw new DynoxideMissingError(`DYNOXIDE_BIN is "${given}", which is not an executable file`);
  }
  const fromNpm = packaged();
  if (fromNpm) return fromNpm;
  if (executable(cachedBinary(cache))) return cachedBinary(cache);
  if (!hasCargo(env)) {
    throw new DynoxideMissingError(
      `no Dynoxide for ${process.platform}-${process.arch}: the npm package ${PLATFORM_PACKAGE} serves linux-x64 only (run npm ci there). ` +
        `Elsewhere install Rust (cargo 1.88 or later) so that the project builds ${DYNOXIDE_CRATE.name} ${DYNOXIDE_CRATE.version} once, ` +
        'or set DYNOXIDE_BIN to a dynoxide binary, or DYNAMODB_ENDPOINT to a running DynamoDB.',
    );
  }
  await buildWithCargo(cache, env, log);
  if (!existsSync(cachedBinary(cache))) throw new DynoxideMissingError(`cargo built no ${cachedBinary(cache)}`);
  return cachedBinary(cache);
};
