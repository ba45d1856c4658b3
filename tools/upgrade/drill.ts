import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { startLocalDatabase } from '../../local/dynoxide';
import { freePort } from '../../local/ports';
import { lastRelease, materializeRelease } from './release';
import { Traffic, unreadableWrites } from './traffic';

const HELP = `Usage: npm run test:upgrade-drill [-- --help]

The upgrade drill: the last release (releases.json; its code from the recorded commit, built once
under .tools/releases/<commit>) and this code served side by side by their npm start on ONE
Dynoxide, under continuous traffic (creates, gets, patches, lists, deletes through both), following
docs/operations.md's runbook: 'before' steps, deploy (both serve), traffic to the new code only,
'after' steps; then a rollback to the last release. Fails on any 5xx or refused request at any
step, or on an acknowledged write that either version reads back otherwise. Exit 0 when it passed.
`;

const ROOT = resolve(import.meta.dirname, '../..');
const TABLES = { BOOKS_TABLE_NAME: 'drill-books', AUTH_TABLE_NAME: 'drill-auth' };
/** How long each step of the runbook runs under traffic. */
const STEP_MS = 1500;

interface Server {
  name: string;
  url: string;
  process: ChildProcess;
  output: () => string;
}

/** `npm start` of the code in `cwd` (its local/main.ts, run as its npm start runs it) on the drill's database. */
const startServer = async (name: string, cwd: string, endpoint: string): Promise<Server> => {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    cwd,
    env: {
      ...process.env,
      ...TABLES,
      DYNAMODB_ENDPOINT: endpoint,
      PORT: String(port),
      LOCAL_USERS: 'demo:demo',
      NODE_NO_WARNINGS: '1',
    },
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  while (!output.includes('listening on')) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGTERM');
      throw new Error(`${name} did not start:\n${output}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return { name, url: `http://127.0.0.1:${port}`, process: child, output: () => output };
};

const stopServer = async ({ process: child }: Server) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
};

/** `npm run data:migrate -- --phase <phase>` of this code against the drill's table, its output shown. */
const migrate = (phase: 'before' | 'after', endpoint: string) => {
  const output = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'tools/migrate.ts',
      '--phase',
      phase,
      '--endpoint',
      endpoint,
      '--table',
      TABLES.BOOKS_TABLE_NAME,
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NODE_NO_WARNINGS: '1' },
    },
  );
  console.error(`  ${output.trim()}`);
};

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

const drill = async () => {
  const started = Date.now();
  const release = lastRelease();
  const releaseDir = materializeRelease(release);
  const database = await startLocalDatabase();
  const traffic = new Traffic();
  const servers: Server[] = [];
  const step = async (name: string, targets: Server[]) => {
    console.error(`step: ${name} (traffic to ${targets.map((server) => server.name).join(' and ')})`);
    traffic.route(
      name,
      targets.map((server) => server.url),
    );
    await pause(STEP_MS);
  };
  const up = async (name: string, cwd: string) => {
    const server = await startServer(name, cwd, database.endpoint);
    servers.push(server);
    return server;
  };
  try {
    const old = await up(`release ${release.version}`, releaseDir);
    traffic.route('the last release alone', [old.url]);
    traffic.start(4);
    await step('the last release alone', [old]);
    console.error('runbook 1: npm run data:migrate -- --phase before');
    migrate('before', database.endpoint);
    await step("after the 'before' steps", [old]);
    console.error('runbook 2: deploy (new containers start beside the old ones)');
    const current = await up('this code', ROOT);
    await step('during the deploy', [old, current]);
    await step('after the deploy', [current]);
    await stopServer(old);
    console.error('runbook 3: npm run data:migrate -- --phase after');
    migrate('after', database.endpoint);
    await step("after the 'after' steps", [current]);
    console.error('rollback: the last release deployed again');
    const rolledBack = await up(`release ${release.version} again`, releaseDir);
    await step('during the rollback', [rolledBack, current]);
    await step('after the rollback', [rolledBack]);
    await traffic.stop();

    const wrong = [
      ...(await unreadableWrites(traffic, rolledBack.url)),
      ...(await unreadableWrites(traffic, current.url)),
    ];
    console.error(
      `${traffic.requests} requests, ${traffic.books.size} books written, ${traffic.faults.length} faults, ` +
        `${wrong.length} unreadable writes, ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    for (const fault of traffic.faults.slice(0, 10)) {
      console.error(`  5xx during "${fault.step}": ${fault.request} -> ${fault.status} ${fault.body.slice(0, 200)}`);
    }
    for (const line of wrong.slice(0, 10)) console.error(`  ${line}`);
    if (traffic.books.size === 0) throw new Error('no write was acknowledged: the drill tested nothing');
    return traffic.faults.length === 0 && wrong.length === 0;
  } finally {
    await traffic.stop();
    for (const server of servers) await stopServer(server);
    await database.stop();
  }
};

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(HELP);
} else {
  drill().then(
    (passed) => {
      console.log(passed ? 'upgrade drill passed' : 'upgrade drill FAILED');
      process.exitCode = passed ? 0 : 1;
    },
    (error: Error) => {
      console.error(`upgrade drill could not run: ${error.stack}`);
      process.exitCode = 1;
    },
  );
}
