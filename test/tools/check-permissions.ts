import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseCommandLine, runTool, UsageError } from '../../tools/cli';
import { checkRoles } from './permissions/check';
import { eventsFunctionProblems } from './permissions/events-function';
import { RECORDED_CALLS_FIXTURE, readCalls, representativeCalls } from './permissions/recorded-calls';
import { synthesizeRoles } from './permissions/role-policies';

const COMMAND = 'npm run test:permissions --';
const DEFAULT_LOG = '.test-results/dynamodb-calls.jsonl';

const HELP = `Usage: npm run test:permissions -- [options]

Runs the integration and end-to-end suites with every DynamoDB call each function makes recorded
(DYNAMODB_CALL_LOG), then evaluates each distinct call against that function's role as the CDK
synthesizes it, with an IAM policy simulator (@cloud-copilot/iam-simulate). Fails when a call would
be denied on AWS, naming the function, action, resource and the statement its role lacks; when
a role allows a call its declaration (shared/store/table-access.ts) leaves out, probed for every
action on every table, index and stream with a representative key (a lost condition, a resource
widened), naming the statement; when a function is granted a DynamoDB action no recorded call of
it needs; and when a path only one flow takes (the nonce key, a machine credential, a key record's
delete and read) is missing from the record. The change-events
function, which makes no DynamoDB item call, is checked on its declared calls instead
(test/tools/permissions/events-function.ts): each must be allowed, each forbidden one denied
(exit 1; 2 on a usage error).

Options:
  --calls <file>     check the calls recorded in this file instead of running the suites
  --save-fixture     after a passing check, write one call of each kind to
                     ${RECORDED_CALLS_FIXTURE} (what test/infra/permission-check.test.ts feeds)
  -h, --help         this text
`;

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
  const parsed = parseCommandLine({
    command: COMMAND,
    help: HELP,
    options: { calls: { type: 'string' }, 'save-fixture': { type: 'boolean' } },
  });
  if (!parsed) return;
  const file = resolve(parsed.values.calls ?? DEFAULT_LOG);
  if (parsed.values.calls === undefined) recordSuites(file);
  else if (!existsSync(file)) throw new UsageError(`--calls: no file ${file}`);
  const calls = readCalls(file);
  const made = calls.filter((call) => call.function);
  if (made.length === 0) throw new Error(`no function's DynamoDB call is recorded in ${file}`);
  const roles = synthesizeRoles();
  const findings = await checkRoles(calls, roles);
  for (const finding of findings) console.error(`${finding.kind}: ${finding.line}`);
  if (findings.length > 0) throw new Error(`${findings.length} finding(s); see above`);
  const events = roles.changeEvents ? await eventsFunctionProblems(roles.changeEvents) : ['no change-events function'];
  for (const problem of events) console.error(problem);
  if (events.length > 0) throw new Error(`${events.length} change-events permission problem(s)`);
  console.log(
    `${made.length} DynamoDB calls of ${new Set(made.map((c) => c.function)).size} functions: all allowed, ` +
      'every granted action needed, no undeclared call allowed, every rare path recorded; ' +
      'the change-events function: its declared calls allowed, the forbidden ones denied',
  );
  if (parsed.values['save-fixture']) {
    writeFileSync(
      RECORDED_CALLS_FIXTURE,
      representativeCalls(calls)
        .map((call) => `${JSON.stringify(call)}\n`)
        .join(''),
    );
    console.log(`wrote ${RECORDED_CALLS_FIXTURE}`);
  }
};

runTool(COMMAND, main);
