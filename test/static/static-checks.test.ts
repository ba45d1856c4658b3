import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The static checks CI must not skip, run as tests so that `npm test` is every check there is:
 * the type checker, Biome, and the CDK CLI's own synthesis of the app with cdk-nag.
 */
const run = (command: string, args: string[]) => {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, FORCE_COLOR: '0', CI: 'true' },
  });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.slice(-4_000) };
};

describe('static checks', () => {
  it('type-checks (tsc --noEmit, strict)', () => {
    const { status, output } = run('npx', ['tsc', '--noEmit']);
    expect(status, output).toBe(0);
  }, 300_000);

  it('passes Biome (npm run lint)', () => {
    const { status, output } = run('npm', ['run', '--silent', 'lint']);
    expect(status, output).toBe(0);
  }, 300_000);

  it('synthesizes through the CDK CLI with the cdk-nag AwsSolutions checks and no unacknowledged finding', () => {
    const out = mkdtempSync(join(tmpdir(), 'cdk-synth-'));
    try {
      const { status, output } = run('npx', ['cdk', 'synth', '--quiet', '--output', out]);
      expect(status, output).toBe(0);
      expect(readdirSync(out)).toContain('BookLibrary-dev.template.json');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);
});
