import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { requireTools } from './required-tools';

const run = promisify(execFile);

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLIENTS_DIR = join(ROOT, 'test/clients');
/** Build output of the compiled clients (git-ignored), reused from run to run. */
export const TOOLS = join(ROOT, '.tools/clients');
export const PYTHON_BIN = join(ROOT, '.tools/clients-python/bin');
export const JAVA_CLASSPATH = `${TOOLS}/java/classes:${TOOLS}/java/dependency/*`;

const BUILD_TIMEOUT_MS = 15 * 60_000;

/** A build step; its failure names the step and keeps the tool's own output. */
const step = async (
  name: string,
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
) => {
  const started = Date.now();
  try {
    const result = await run(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      timeout: BUILD_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
    console.error(`client matrix: ${name} ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return result;
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`client matrix: ${name} failed: ${(stderr || stdout || String(error)).slice(-2000)}`, {
      cause: error,
    });
  }
};

/** Debian's packages for the command-line clients and the browser, installed when missing (as .ci/run does). */
const DEBIAN_PACKAGES: Record<string, string> = {
  '/usr/bin/curl': 'curl',
  '/usr/bin/wget': 'wget',
  '/usr/bin/http': 'httpie',
  '/usr/bin/chromium': 'chromium',
};
const debianPackages = async () => {
  const missing = Object.entries(DEBIAN_PACKAGES).flatMap(([file, name]) => (existsSync(file) ? [] : [name]));
  if (missing.length === 0) return;
  await step('apt-get update', 'apt-get', ['update', '-qq']);
  await step(
    `apt-get install ${missing.join(' ')}`,
    'apt-get',
    ['install', '-y', '-qq', '--no-install-recommends', ...missing],
    {
      env: { DEBIAN_FRONTEND: 'noninteractive' },
    },
  );
};

/** The Python clients' virtual environment (PYTHON_BIN), made once with the pinned requirements. */
export const preparePythonClients = async () => {
  const requirements = readFileSync(join(CLIENTS_DIR, 'python/requirements.txt'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'));
  await step('Python clients', 'bash', [join(ROOT, 'test/tools/python-tool.sh'), 'clients-python', ...requirements]);
};

const go = () =>
  step('Go client', 'go', ['build', '-o', join(TOOLS, 'go-client'), '.'], { cwd: join(CLIENTS_DIR, 'go') });

/** A debug build: it compiles in about a third of a release build's time, and the target directory is kept. */
const rust = () =>
  step('Rust client', 'cargo', ['build', '--locked', '--quiet'], {
    cwd: join(CLIENTS_DIR, 'rust'),
    env: { CARGO_TARGET_DIR: join(TOOLS, 'rust-target') },
  });

/** Maven takes seconds even with nothing to do, so it runs only when the pom or a source changed. */
const java = async () => {
  const dir = join(CLIENTS_DIR, 'java');
  const sources = ['pom.xml', 'UrlConnectionClient.java', 'HttpClient5Client.java'];
  const hash = createHash('sha256');
  for (const file of sources) hash.update(readFileSync(join(dir, file)));
  const stamp = join(TOOLS, 'java.stamp');
  const digest = hash.digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  await step('Java clients', 'mvn', ['-q', '-B', 'package', 'dependency:copy-dependencies'], { cwd: dir });
  writeFileSync(stamp, digest);
};

/** What the matrix runs or builds with, besides Node: Debian's packages above are installed when missing, the rest must be there. */
const MATRIX_TOOLS = ['curl', 'wget', 'http', '/usr/bin/chromium', 'python3', 'go', 'cargo', 'java', 'javac', 'mvn'];

/** Installs and builds every client's toolchain once per run; a toolchain that cannot be made fails the run. */
export const prepareToolchains = async () => {
  mkdirSync(TOOLS, { recursive: true });
  const installFailure = await debianPackages().then(
    () => undefined,
    (error: unknown) => error,
  );
  requireTools('the client matrix (npm run test:clients)', MATRIX_TOOLS, installFailure);
  if (installFailure) throw installFailure;
  await Promise.all([preparePythonClients(), go(), rust(), java()]);
};
