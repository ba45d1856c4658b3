import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';

/** Docker could not be installed or started: `npm run test:sam` fails with this, it never skips. */
class DockerUnavailableError extends Error {
  override readonly name = 'DockerUnavailableError';
}

export interface DockerEngine {
  /** The Docker bridge's address on this machine: what `host-gateway` resolves to in a container. */
  bridgeAddress: string;
  /** Stops the engine if this process started it; an engine that was already running is left alone. */
  stop(): Promise<void>;
}

const run = (command: string, args: string[]) => spawnSync(command, args, { encoding: 'utf8' });
const engineAnswers = () => run('docker', ['info', '--format', '{{.ServerVersion}}']).status === 0;

/** Installs Debian's docker.io when the machine has no engine (root, as on CI). */
const installEngine = () => {
  if (run('sh', ['-c', 'command -v dockerd']).status === 0) return;
  if (process.getuid?.() !== 0)
    throw new DockerUnavailableError('no Docker engine (dockerd) and not root: install Docker, then rerun');
  console.log('[sam] installing docker.io from Debian ...');
  const update = run('apt-get', ['update', '-qq']);
  const install = run('apt-get', ['install', '-y', '-qq', 'docker.io']);
  if (update.status !== 0 || install.status !== 0)
    throw new DockerUnavailableError(`apt-get install docker.io failed:\n${update.stderr}${install.stderr}`);
};

/**
 * The address of the docker0 interface, read with `ip` because Node's networkInterfaces() leaves
 * out an interface that is down, which the bridge is while no container runs.
 */
const bridgeAddress = (): string => {
  const address = /inet (\d+\.\d+\.\d+\.\d+)\//.exec(run('ip', ['-4', '-o', 'addr', 'show', 'docker0']).stdout)?.[1];
  if (!address) throw new DockerUnavailableError('the Docker engine runs but has no docker0 bridge');
  return address;
};

/**
 * A running Docker engine: the one already answering, or `dockerd` started here (logs in
 * `logDir`/dockerd.log) and stopped again by `stop()`.
 */
export const ensureDockerEngine = async (logDir: string): Promise<DockerEngine> => {
  if (engineAnswers()) return { bridgeAddress: bridgeAddress(), stop: async () => {} };
  installEngine();
  const logFile = join(logDir, 'dockerd.log');
  const log = openSync(logFile, 'a');
  console.log(`[sam] starting dockerd (log: ${logFile}) ...`);
  const daemon: ChildProcess = spawn('dockerd', [], { stdio: ['ignore', log, log] });
  closeSync(log);
  const exited = new Promise<void>((done) => daemon.once('exit', () => done()));
  const deadline = Date.now() + 60_000;
  while (!engineAnswers()) {
    if (daemon.exitCode !== null)
      throw new DockerUnavailableError(`dockerd exited (${daemon.exitCode}); see ${logFile}`);
    if (Date.now() > deadline) {
      daemon.kill('SIGKILL');
      throw new DockerUnavailableError(`dockerd did not answer within 60 s; see ${logFile}`);
    }
    await setTimeout(250);
  }
  return {
    bridgeAddress: bridgeAddress(),
    stop: async () => {
      if (daemon.exitCode !== null) return;
      daemon.kill('SIGTERM');
      await Promise.race([exited, setTimeout(20_000).then(() => daemon.kill('SIGKILL'))]);
    },
  };
};
