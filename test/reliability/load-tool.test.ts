import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** `npm run load` as a user runs it: it starts npm start itself, loads it, and checks every write. */
const load = (args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(
      'npx',
      ['tsx', 'tools/load.ts', ...args],
      { env: { ...process.env, DYNAMODB_ENDPOINT: '' } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('npm run load', () => {
  it('runs a short mixed load against npm start: zero 5xx, zero lost writes, clean invariants', async () => {
    const { code, stdout, stderr } = await load(['--requests', '400', '--connections', '8', '--time-limit', '90']);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout).toMatch(/requests {6}400 in [\d.]+ s, \d+ req\/s/);
    expect(stdout).toMatch(/latency \(ms\) {2}p50 \d+, p90 \d+, p99 \d+/);
    expect(stdout).toMatch(/5xx {11}0; transport errors 0, timeouts 0/);
    expect(stdout).toMatch(/lost 0, phantom 0/);
    expect(stdout).toContain('invariants    clean');
    expect(stdout).toContain('OK: zero 5xx, zero lost writes');
  }, 150_000);

  it('explains itself, and refuses a target that is not on this machine', async () => {
    expect((await load(['--help'])).stdout).toContain('Usage: npm run load');
    const remote = await load(['--url', 'http://10.0.0.1:3000']);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('--url must be a loopback address');
  }, 60_000);
});
