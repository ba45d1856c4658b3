import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FunctionArchitecture, machineArchitecture } from '../../infra/constructs/route-function';

/**
 * A local stand-in for AWS's Lambda base image `public.ecr.aws/lambda/nodejs:24-<arch>`, which
 * `sam local` builds its invoke image from, for machines that reach no container registry. It
 * holds Node 24 (the npm registry's `node-linux-<arch>` package) with the C libraries it links
 * against (copied from this machine), a static BusyBox from Debian for the shell SAM's image build
 * runs, a hand-written Runtime API loop (lambda-standin/runtime.mjs), and the base image's users
 * (`root` and `sbx_user1051` in lambda-standin/passwd and group) with their home directories. The Runtime Interface
 * Emulator is not part of it: SAM adds its own copy, as it does on top of AWS's image.
 */
const NODE_VERSION = '24.21.0';
const LABEL = 'book-library.lambda-standin';
const SOURCES = fileURLToPath(new URL('./lambda-standin/', import.meta.url));

/** The tag SAM looks for (`sam local` with `--skip-pull-image` uses it as it is). */
const baseImageTag = (architecture: FunctionArchitecture) => `public.ecr.aws/lambda/nodejs:24-${architecture}`;
/** The image SAM builds on top of the base image, with its emulator added. */
const rapidImageTag = (architecture: FunctionArchitecture) => `public.ecr.aws/lambda/nodejs:24-rapid-${architecture}`;

const run = (command: string, args: string[], options: { cwd?: string } = {}) => {
  const result = spawnSync(command, args, { ...options, encoding: 'buffer', maxBuffer: 1 << 30 });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stderr?.toString() ?? ''}`);
  return result.stdout.toString();
};

/** What the image is made of: a changed runtime file or Node version makes a new image. */
const recipeHash = () => {
  const hash = createHash('sha256').update(NODE_VERSION);
  for (const file of readdirSync(SOURCES).sort()) hash.update(file).update(readFileSync(join(SOURCES, file)));
  return hash.digest('hex').slice(0, 16);
};

const imageLabel = (tag: string): string | undefined => {
  const result = spawnSync('docker', ['image', 'inspect', tag, '--format', `{{index .Config.Labels "${LABEL}"}}`], {
    encoding: 'utf8',
  });
  if (result.status !== 0) return undefined;
  const label = result.stdout.trim();
  return label === '<no value>' ? '' : label;
};

/** The shared libraries `binary` loads, as `ldd` resolves them on this machine. */
const sharedLibraries = (binary: string): string[] =>
  run('ldd', [binary])
    .split('\n')
    .map((line) => /(\/\S+) \(0x/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);

const assembleRootFs = (root: string, scratch: string) => {
  const npmArch = process.arch === 'arm64' ? 'arm64' : 'x64';
  run('npm', ['pack', '--silent', `node-linux-${npmArch}@${NODE_VERSION}`], { cwd: scratch });
  run('tar', ['xzf', `node-linux-${npmArch}-${NODE_VERSION}.tgz`], { cwd: scratch });
  const node = join(scratch, 'package', 'bin', 'node');
  mkdirSync(join(root, 'var/lang/bin'), { recursive: true });
  copyFileSync(node, join(root, 'var/lang/bin/node'));
  chmodSync(join(root, 'var/lang/bin/node'), 0o755);
  for (const library of sharedLibraries(node)) {
    mkdirSync(join(root, dirname(library)), { recursive: true });
    copyFileSync(library, join(root, library));
  }

  run('apt-get', ['download', '-qq', 'busybox-static'], { cwd: scratch });
  const deb = readdirSync(scratch).find((file) => file.startsWith('busybox-static') && file.endsWith('.deb'));
  if (!deb) throw new Error('apt-get download busybox-static left no package');
  run('dpkg-deb', ['-x', deb, 'busybox'], { cwd: scratch });
  mkdirSync(join(root, 'bin'), { recursive: true });
  copyFileSync(join(scratch, 'busybox/bin/busybox'), join(root, 'bin/busybox'));
  chmodSync(join(root, 'bin/busybox'), 0o755);
  for (const applet of ['sh', 'mv', 'cp', 'rm', 'chmod', 'mkdir', 'ls', 'cat'])
    symlinkSync('busybox', join(root, 'bin', applet));

  mkdirSync(join(root, 'var/runtime'), { recursive: true });
  for (const file of ['bootstrap', 'runtime.mjs']) copyFileSync(join(SOURCES, file), join(root, 'var/runtime', file));
  chmodSync(join(root, 'var/runtime/bootstrap'), 0o755);
  mkdirSync(join(root, 'etc'), { recursive: true });
  for (const file of ['nsswitch.conf', 'passwd', 'group']) copyFileSync(join(SOURCES, file), join(root, 'etc', file));
  for (const dir of ['var/task', 'opt', 'tmp', 'root', 'home/sbx_user1051'])
    mkdirSync(join(root, dir), { recursive: true });
  // The user the runtime runs as (root under `sam local`, sbx_user1051 on AWS) has its home there:
  // os.homedir() asks /etc/passwd when HOME is unset (the bootstrap unsets it, as Lambda sets none),
  // and the SDK asks os.homedir() for its shared config files whenever no endpoint is given in code
  // (AWS_ENDPOINT_URL, for one).
  chownSync(join(root, 'home/sbx_user1051'), 993, 990);
  chmodSync(join(root, 'home/sbx_user1051'), 0o700);
  chmodSync(join(root, 'tmp'), 0o1777);
};

export type BaseImage = { tag: string; origin: 'AWS' | 'stand-in, reused' | 'stand-in, built' };

/**
 * Makes sure SAM finds its base image: AWS's own when this machine has it (pulled earlier), else
 * the stand-in, built again only when its recipe changed (SAM's invoke image built from an older
 * stand-in is removed with it, so SAM rebuilds that too).
 */
export const ensureBaseImage = (architecture: FunctionArchitecture): BaseImage => {
  if (architecture !== machineArchitecture())
    throw new Error(`the stand-in image is built for this machine (${machineArchitecture()}), not ${architecture}`);
  const tag = baseImageTag(architecture);
  const label = imageLabel(tag);
  if (label === '') return { tag, origin: 'AWS' };
  const recipe = recipeHash();
  if (label === recipe) return { tag, origin: 'stand-in, reused' };

  console.log(`[sam] building the stand-in image ${tag} (Node ${NODE_VERSION}) ...`);
  const scratch = mkdtempSync(join(tmpdir(), 'lambda-standin-'));
  try {
    const root = join(scratch, 'rootfs');
    mkdirSync(root);
    assembleRootFs(root, scratch);
    run('tar', ['-C', root, '-cf', join(scratch, 'rootfs.tar'), '.']);
    spawnSync('docker', ['image', 'rm', '-f', rapidImageTag(architecture)], { stdio: 'ignore' });
    run('docker', [
      'import',
      '--change',
      'ENV PATH=/var/lang/bin:/usr/local/bin:/usr/bin:/bin',
      '--change',
      'ENV LAMBDA_TASK_ROOT=/var/task',
      '--change',
      'ENV LAMBDA_RUNTIME_DIR=/var/runtime',
      '--change',
      'ENV LANG=en_US.UTF-8',
      '--change',
      'ENV TZ=:UTC',
      '--change',
      'WORKDIR /var/task',
      '--change',
      `LABEL ${LABEL}=${recipe}`,
      '--change',
      'ENTRYPOINT ["/var/runtime/bootstrap"]',
      join(scratch, 'rootfs.tar'),
      tag,
    ]);
    return { tag, origin: 'stand-in, built' };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
};
