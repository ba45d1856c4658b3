import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { RecordedCall } from '../../local/call-log';
import { parseCommandLine, runTool, UsageError } from '../../tools/cli';
import { deniedCalls, describeDenial, unnoticedRemovals } from './permissions/evaluate';
import { synthesizeRoles } from './permissions/role-policies';

const COMMAND = 'npm run test:permissions --';
const DEFAULT_LOG = '.test-results/dynamodb-calls.jsonl';

const HELP = `Usage: npm run test:permissions -- [options]

Runs the integration and end-to-end suites with every DynamoDB call each function makes recorded
(DYNAMODB_CALL_LOG), then evaluates each distinct call against that function's role as the CDK
synthesizes it, with an IAM policy simulator (@cloud-copilot/iam-simulate). Fails when a call would
be denied on AWS, naming the function, action, resource and the statement its role lacks, and
when a function is granted a DynamoDB action no recorded call of it needs (more than it uses, and
a grant whose removal would go unnoticed) (exit 1; 2 on a usage error).

Options:
  --calls <file>   check the calls recorded in this file instead of running the suites
  -h, --help       this text
`;

const readCalls = (file: string): RecordedCall[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RecordedCall);

/** The suites as `npm test` runs them, recording; their own failures fail this check too. */
const recordSuites = (file: string) => {
  mkdirSync(dirname(file), { recursive: true });
  rmSync(file, { force: true });
  const run = spawnSync(
    'npx',
    [
      'vitest',
      'run',
      '--project',
      'integration',
      '--project',
      'e2e',
      '--outputFile.json=.test-results/permissions.json',
    ],
    { stdio: 'inherit', env: { ...process.env, DYNAMODB_CALL_LOG: file } },
  );
  if (run.status !== 0) throw new Error(`the suites failed (exit ${run.status ?? run.signal}); see above`);
};

const main = async () => {
  const parsed = parseCommandLine({ command: COMMAND, help: HELP, options: { calls: { type: 'string' } } });
  if (!parsed) return;
  const file = resolve(parsed.values.calls ?? DEFAULT_LOG);
  if (parsed.values.calls === undefined) recordSuites(file);
  else if (!existsSync(file)) throw new UsageError(`--calls: no file ${file}`);
  const calls = readCalls(file);
  const made = calls.filter((call) => call.function);
  if (made.length === 0) throw new Error(`no function's DynamoDB call is recorded in ${file}`);
  const roles = synthesizeRoles();
  const denials = await deniedCalls(calls, roles);
  for (const denial of denials) console.error(`DENIED: ${describeDenial(denial)}`);
  if (denials.length > 0) throw new Error(`${denials.length} denied call(s)`);
  // A grant no call needs is more than least privilege, and taking it out would go unnoticed.
  const unneeded = await unnoticedRemovals(calls, roles);
  for (const removal of unneeded) {
    console.error(
      `NOT NEEDED: ${removal.function} is granted ${removal.action} (${removal.policy}, statement ${removal.statement}), ` +
        'which no recorded call needs: take it out of shared/store/table-access.ts, or add the test that makes that call',
    );
  }
  if (unneeded.length > 0) throw new Error(`${unneeded.length} granted action(s) no recorded call needs`);
  console.log(
    `${made.length} DynamoDB calls of ${new Set(made.map((c) => c.function)).size} functions: all allowed, every granted action needed`,
  );
};

runTool(COMMAND, main);
