import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiUrlFile } from '../../local/endpoint-file';
import { userRecord } from '../../ops/user-records';
import { DynamoAccountStore } from '../../shared/store/auth/dynamodb-account-store';
import { DynamoUserStore } from '../../shared/store/auth/dynamodb-user-store';
import { CHECKS } from '../../tools/verify-deployment/checks';
import { ROLE_CHECKS } from '../../tools/verify-deployment/checks/roles';
import { type Fault, startBreakingProxy } from '../support/breaking-proxy';
import { endlessBody, startHostileServer, TERMINAL_ATTACK } from '../support/hostile-server';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';
import { startTool, type ToolRun } from '../support/tool-process';

/**
 * `npm run verify:deployment` as an operator runs it, in its own process: against the local API
 * (`npm start`'s gateway on Dynoxide), and against a proxy in front of it that breaks one
 * thing a deployment can get wrong, which the check must report by name.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
let othersBooks: unknown[];

const SOMEONE_ELSES = [
  { title: 'Not the check’s', author: 'Someone Else', isbn: 'OTHER-1', publicationYear: 1990 },
  // Looks like another run's book: the check must still leave it alone.
  {
    title: 'verify-deployment OTHERRUN book 1',
    author: 'Verify Deployment OTHERRUN',
    isbn: 'VD-OTHERRUN-1',
    publicationYear: 1901,
  },
];

const listAll = async () => {
  const response = await fetch(`${api.baseUrl}/api/books`, { headers: { authorization: BASIC_DEMO } });
  return (await response.json()) as unknown[];
};

beforeAll(async () => {
  api = await startLocalApi();
  for (const book of SOMEONE_ELSES) {
    const response = await fetch(`${api.baseUrl}/api/books`, {
      method: 'POST',
      headers: { authorization: BASIC_DEMO, 'content-type': 'application/json' },
      body: JSON.stringify(book),
    });
    expect(response.status).toBe(201);
  }
  othersBooks = await listAll();
});
afterAll(() => api.close());

/**
 * What `npm run users -- unlock demo` does, before every test: each run's wrong-password check spends
 * a failure of the known source's hourly budget, which no right password gives back, so the file's
 * runs together would lock demo, as the guessing limit means them to.
 */
const unlockDemo = () => new DynamoAccountStore(api.tables.documentClient, api.tables.names.auth).clearFailures('demo');
const failuresOfDemo = async () =>
  (await new DynamoAccountStore(api.tables.documentClient, api.tables.names.auth).account('demo', true)).failures;
beforeEach(async () => {
  await unlockDemo();
});

const verify = (baseUrl: string, args: string[] = []) =>
  startTool('verify-deployment', [baseUrl, ...args], { env: { VERIFY_PASSWORD: 'demo' } });

const checkLines = (run: ToolRun) => run.stdout.split('\n').filter((line) => /^(PASS|FAIL|SKIP) {2}/.test(line));
const summaryOf = (run: ToolRun) => run.stdout.trim().split('\n').at(-1);
const output = (run: ToolRun) => `${run.stdout}\n${run.stderr}`;

const GATEWAY_CHECKS = CHECKS.filter((check) => check.needsGatewayResponses);
const CLEANUP = 'clean-up: every book this run created is deleted';

describe('npm run verify:deployment', () => {
  it('passes every check against the local API, and leaves exactly the books it did not create', async () => {
    const run = await verify(api.baseUrl).done;
    expect(run.code, output(run)).toBe(0);
    const lines = checkLines(run);
    expect(lines).toHaveLength(CHECKS.length + 1);
    for (const check of CHECKS) expect(run.stdout).toContain(`PASS  ${check.name}`);
    expect(run.stdout).toContain(`PASS  ${CLEANUP}: 1 deleted`);
    expect(summaryOf(run)).toBe(`OK: ${CHECKS.length + 1} passed, 0 failed, 0 skipped`);
    expect(await listAll()).toEqual(othersBooks);
  }, 120_000);

  it('with --reader checks that a reader reads (200) and cannot write (403), and fails where the user may write', async () => {
    const users = new DynamoUserStore(api.tables.documentClient, api.tables.names.auth);
    await users.put({ ...userRecord('rita', 'rita-pass', 'books'), role: 'reader' });
    const [roleCheck] = ROLE_CHECKS.map((check) => check.name);
    const withReader = (reader: string, password: string) =>
      startTool('verify-deployment', [api.baseUrl, '--reader', reader], {
        env: { VERIFY_PASSWORD: 'demo', VERIFY_READER_PASSWORD: password },
      }).done;

    const run = await withReader('rita', 'rita-pass');
    expect(run.code, output(run)).toBe(0);
    expect(run.stdout).toContain(`PASS  ${roleCheck}: rita: 200 on the read, 403 on the write`);
    expect(summaryOf(run)).toBe(`OK: ${CHECKS.length + 2} passed, 0 failed, 0 skipped`);

    // demo is an admin: its write is let in, which the check reports, and the book goes with the clean-up.
    const admin = await withReader('demo', 'demo');
    expect(admin.code).toBe(1);
    expect(admin.stdout).toContain(`FAIL  ${roleCheck}: POST /api/books as the reader: expected 403, got 201`);
    expect(await listAll()).toEqual(othersBooks);

    const noPassword = await startTool('verify-deployment', [api.baseUrl, '--reader', 'rita'], {
      env: { VERIFY_PASSWORD: 'demo', VERIFY_READER_PASSWORD: '' },
    }).done;
    expect(noPassword.code).toBe(2);
    expect(noPassword.stderr).toContain('--reader needs VERIFY_READER_PASSWORD');
  }, 120_000);

  it('with --skip-gateway-responses reports the checks that need them as SKIP, never as passed, and exits 0', async () => {
    expect(GATEWAY_CHECKS.map((check) => check.id)).toEqual([
      'challenge',
      'fresh-nonces',
      'digest',
      'wrong-password',
      'stale-nonce',
      'unknown-route',
      'too-large-for-lambda',
    ]);
    const run = await verify(api.baseUrl, ['--skip-gateway-responses']).done;
    expect(run.code, output(run)).toBe(0);
    for (const check of CHECKS) {
      expect(run.stdout).toContain(
        check.needsGatewayResponses
          ? `SKIP  ${check.name}: needs the stack’s gateway responses`
          : `PASS  ${check.name}`,
      );
    }
    const skipped = GATEWAY_CHECKS.length;
    expect(summaryOf(run)).toBe(`OK: ${CHECKS.length + 1 - skipped} passed, 0 failed, ${skipped} skipped`);
    expect(await listAll()).toEqual(othersBooks);
  }, 120_000);

  it('keeps the stage path of the base URL in every request and demands it in Location and Link', async () => {
    const good = await startBreakingProxy(api.baseUrl, { stage: '/prod' });
    const passed = await verify(good.baseUrl, ['--skip-gateway-responses']).done;
    await good.close();
    expect(passed.code, output(passed)).toBe(0);

    const broken = await startBreakingProxy(api.baseUrl, { stage: '/prod', fault: 'drop-stage-location' });
    const failed = await verify(broken.baseUrl, ['--skip-gateway-responses']).done;
    await broken.close();
    expect(failed.code, output(failed)).toBe(1);
    expect(failed.stdout).toMatch(
      /^FAIL {2}POST \/api\/books gets 201 .*Location: "http:\/\/127\.0\.0\.1:\d+\/api\/books\/\d+" is not/m,
    );
    expect(await listAll()).toEqual(othersBooks);
  }, 120_000);

  const nameOf = (id: string) => CHECKS.find((check) => check.id === id)?.name;

  it.each<[Fault, string, RegExp]>([
    ['repeat-nonce', 'fresh-nonces', /was already sent in an earlier 401/],
    ['drop-challenge', 'challenge', /401 without a WWW-Authenticate header/],
    ['cut-list', 'whole-list', /the body is not complete JSON/],
    ['break-list', 'whole-list', /the body broke off before its end/],
    ['shorten-list', 'whole-list', /lacks book \d+, which this run created/],
    ['move-location', 'create', /Location: ".*\/elsewhere\/api\/books\/\d+" is not/],
  ])(
    'fails behind a proxy that breaks it (%s), naming the check "%s", and still cleans up',
    async (fault, id, reason) => {
      const proxy = await startBreakingProxy(api.baseUrl, { fault });
      const run = await verify(proxy.baseUrl).done;
      await proxy.close();
      expect(run.code, output(run)).toBe(1);
      const line = checkLines(run).find((candidate) => candidate.startsWith(`FAIL  ${nameOf(id)}: `));
      expect(line, output(run)).toMatch(reason);
      expect(summaryOf(run)).toMatch(/^FAILED: \d+ passed, [1-9]\d* failed, \d+ skipped$/);
      expect(run.stdout).toMatch(new RegExp(`^PASS  ${CLEANUP}`, 'm'));
      expect(await listAll()).toEqual(othersBooks);
    },
    120_000,
  );

  it('fails naming the api-index check where /api is a blank 404, and still cleans up', async () => {
    const proxy = await startBreakingProxy(api.baseUrl, { fault: 'no-index' });
    const run = await verify(proxy.baseUrl, ['--skip-gateway-responses']).done;
    await proxy.close();
    expect(run.code, output(run)).toBe(1);
    const line = checkLines(run).find((candidate) => candidate.startsWith(`FAIL  ${nameOf('api-index')}: `));
    expect(line, output(run)).toMatch(/GET \/api: expected 200, got 404/);
    expect(summaryOf(run)).toMatch(/^FAILED: \d+ passed, 1 failed, \d+ skipped$/);
    expect(run.stdout).toMatch(new RegExp(`^PASS  ${CLEANUP}`, 'm'));
    expect(await listAll()).toEqual(othersBooks);
  }, 120_000);

  it("fails naming the OPTIONS, preflight and 405 checks when they are API Gateway's own 500", async () => {
    const proxy = await startBreakingProxy(api.baseUrl, { fault: 'gateway-500-methods' });
    const run = await verify(proxy.baseUrl).done;
    await proxy.close();
    expect(run.code, output(run)).toBe(1);
    for (const id of ['options', 'preflight', 'method-not-allowed']) {
      const line = checkLines(run).find((candidate) => candidate.startsWith(`FAIL  ${nameOf(id)}: `));
      expect(line, output(run)).toMatch(/API Gateway's own 500 \{"message":"An unexpected error occurred"\}/);
    }
    for (const id of ['head', 'not-utf8', 'too-large', 'unsupported-media-type'])
      expect(run.stdout).toContain(`PASS  ${nameOf(id)}`);
    expect(await listAll()).toEqual(othersBooks);
  }, 120_000);

  it('with --origin expects the preflight grant for that origin, and fails where the deployment lists another', async () => {
    const listed = 'https://app.example';
    const cors = await startLocalApi({ env: { CORS_ALLOWED_ORIGINS: listed } });
    try {
      const granted = await verify(cors.baseUrl, ['--origin', listed, '--skip-gateway-responses']).done;
      expect(granted.code, output(granted)).toBe(0);
      expect(granted.stdout).toContain(`PASS  ${nameOf('preflight')}: granted to ${listed}`);
      const refused = await verify(cors.baseUrl, ['--origin', 'https://other.example', '--skip-gateway-responses'])
        .done;
      expect(refused.code, output(refused)).toBe(1);
      expect(refused.stdout).toMatch(
        new RegExp(
          `^FAIL {2}${nameOf('preflight')}: .*access-control-allow-origin is null, expected "https://other.example"`,
          'm',
        ),
      );
    } finally {
      await cors.close();
    }
  }, 180_000);

  it('deletes the books it created when interrupted (SIGINT), and exits 130', async () => {
    let held: () => void = () => {};
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    const proxy = await startBreakingProxy(api.baseUrl, { fault: 'hold-list', onHeld: () => held() });
    const { child, done } = verify(proxy.baseUrl);
    await holding;
    expect(await listAll()).not.toEqual(othersBooks);
    child.kill('SIGINT');
    const run = await done;
    await proxy.close();
    expect(run.code, output(run)).toBe(130);
    expect(run.stdout, output(run)).toContain(`PASS  ${CLEANUP}: 2 deleted`);
    expect(summaryOf(run)).toMatch(/^INTERRUPTED: /);
    expect(await listAll()).toEqual(othersBooks);
  }, 120_000);

  it('explains itself, and refuses a wrong command with exit 2 and a pointer to --help', async () => {
    const help = await startTool('verify-deployment', ['--help']).done;
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: npm run verify:deployment -- [<base URL>]');
    expect(help.stdout).toContain('--allow-insecure-http');
    const twice = await startTool('verify-deployment', ['https://a.test/prod', 'https://b.test/prod']).done;
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('one base URL only');
    expect(twice.stderr).toContain('Usage: npm run verify:deployment -- [<base URL>]');
    expect(twice.stderr).toContain('--help');
    const apiUrl = await startTool('verify-deployment', [`${api.baseUrl}/api/books`]).done;
    expect(apiUrl.code).toBe(2);
    const unreachable = await startTool('verify-deployment', ['http://127.0.0.1:1'], { env: { VERIFY_PASSWORD: 'x' } })
      .done;
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('cannot reach http://127.0.0.1:1');
  }, 60_000);

  it('leaves no failure counted after a passing run: its wrong-password check is followed by right passwords', async () => {
    const run = await verify(api.baseUrl, ['--skip-gateway-responses']).done;
    expect(run.code, output(run)).toBe(0);
    const failures = await failuresOfDemo();
    expect(failures?.runs).toEqual({});
    expect(failures?.knownBucketAt).toBeUndefined();
  }, 120_000);

  it('takes the password from stdin; a wrong one is reported once, as such, and repeated runs do not lock the user out', async () => {
    for (let run = 1; run <= 4; run++) {
      const refused = await startTool('verify-deployment', [api.baseUrl], {
        stdin: 'not-the-password\n',
        env: { VERIFY_PASSWORD: '' },
      }).done;
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(/^error: the API refused the credentials of "demo" \(401\)/);
      expect(refused.stderr).toContain(
        'no such user in the server\'s realm "books", a wrong password, or the account is locked',
      );
      expect(refused.stderr).toContain('`npm run users -- unlock demo`');
    }
    // Four wrong runs are four failed sign-ins, below the lockout (five): the right password still gets in.
    const right = await verify(api.baseUrl, ['--skip-gateway-responses']).done;
    expect(right.code, output(right)).toBe(0);
  }, 120_000);

  it('says in one line that the base URL lacks the stage path, and sends nothing more', async () => {
    const run = await verify(`${api.baseUrl}/prod`).done;
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^error: http:\/\/127\.0\.0\.1:\d+\/prod\/api\/books answered 404: no API there\. Is the stage path missing\?/,
      ),
    ]);
  }, 60_000);

  it('refuses plain http:// to a host that is not this machine before asking for the password', async () => {
    const run = await startTool('verify-deployment', ['http://example.test/prod'], { env: { VERIFY_PASSWORD: '' } })
      .done;
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'refusing to send credentials over plain http:// to example.test, which is not this machine: use https://, or pass --allow-insecure-http',
    );
  }, 60_000);

  it('without a base URL checks the npm start whose address file is in DATA_DIR, and calls a stale one stale', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'verify-data-'));
    try {
      writeFileSync(apiUrlFile(dataDir), `${api.baseUrl}\n`);
      const found = await startTool('verify-deployment', ['--skip-gateway-responses'], {
        env: { VERIFY_PASSWORD: 'demo', DATA_DIR: dataDir },
      }).done;
      expect(found.code, output(found)).toBe(0);
      expect(found.stderr).toContain(`Checking ${api.baseUrl} as demo`);

      writeFileSync(apiUrlFile(dataDir), 'http://127.0.0.1:1\n');
      const stale = await startTool('verify-deployment', [], { env: { VERIFY_PASSWORD: 'demo', DATA_DIR: dataDir } })
        .done;
      expect(stale.code).toBe(1);
      expect(stale.stderr).toContain('cannot reach http://127.0.0.1:1');
      expect(stale.stderr).toContain(
        'names http://127.0.0.1:1, but nothing answers there: it is stale, left by an npm start that did not stop cleanly',
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('prints what a hostile server sends with its control characters escaped', async () => {
    const hostile = await startHostileServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(TERMINAL_ATTACK);
    });
    const run = await verify(hostile.baseUrl).done;
    await hostile.close();
    expect(run.code).toBe(1);
    expect(`${run.stdout}${run.stderr}`).not.toContain('\x1b');
    expect(`${run.stdout}${run.stderr}`).not.toContain('\x07');
    expect(run.stdout).toContain('\\x1b[2J\\x1b]0;owned\\x07');
    expect(summaryOf(run)).toMatch(/^FAILED: /);
  }, 60_000);

  it('stops reading an answer past 1 MiB and says "answer too large"', async () => {
    const hostile = await startHostileServer((_request, response) => endlessBody(response, 64));
    const run = await verify(hostile.baseUrl).done;
    await hostile.close();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: answer too large: GET http:\/\/127\.0\.0\.1:\d+\/api\/books\?limit=1 is over the 1048576 bytes/m,
    );
  }, 60_000);
});
