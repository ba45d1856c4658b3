import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../bench/bundles';
import { BUNDLING } from '../../infra/bundling';
import { AUTHORIZER, RESOURCE_METHODS, ROUTES } from '../../shared/api/routes';

/**
 * The stack's bundles swap the SDK's default credential chain for its environment link (see
 * infra/lambda-credential-provider.ts). These tests build with the stack's own options and run
 * the result in a fresh process, with the environment Lambda gives a function and without it.
 */
describe('Lambda bundles and credentials', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'bundling-test-'));
  const probe = join(outDir, 'probe.mjs');
  let metafile: Metafile;

  beforeAll(async () => {
    const result = await build({
      ...esbuildOptions(BUNDLING, 'test/support/credential-probe.ts', probe),
      logLevel: 'error',
    });
    metafile = result.metafile as Metafile;
  }, 60_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  const run = (env: Record<string, string>) => {
    const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE, ...rest } = process.env;
    const child = spawnSync(process.execPath, [probe], {
      env: { ...rest, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', HOME: outDir, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}');
  };

  it('resolve the execution role’s credentials from the environment, as the Lambda runtime sets them', () => {
    expect(
      run({ AWS_ACCESS_KEY_ID: 'AKIDLAMBDA', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' }),
    ).toEqual({ accessKeyId: 'AKIDLAMBDA', sessionToken: 'token' });
  });

  it('fail at once without them, trying no other source', () => {
    expect(run({})).toEqual({ error: 'CredentialsProviderError' });
  });

  it('carry none of the chain’s other links (SSO, STS, INI files, instance metadata)', () => {
    const inputs = Object.keys(metafile.inputs).join('\n');
    for (const unused of [
      'credential-provider-node',
      'credential-provider-ini',
      'credential-provider-sso',
      'credential-provider-imds',
      'nested-clients',
    ]) {
      expect(inputs).not.toContain(`/${unused}/`);
    }
    expect(inputs).toContain('infra/lambda-credential-provider.ts');
  });
});

/**
 * What only `npm start` and the tests use stays out of every function: the DynamoDB call log
 * (local/call-log.ts) is attached from outside, so no bundle the stack builds names it.
 */
describe('Lambda bundles and local-only code', () => {
  const MARKERS = ['DYNAMODB_CALL_LOG', 'recordDynamoDbCalls', 'local/call-log.ts'];
  const ENTRIES = [...new Set([...ROUTES.map(({ entry }) => entry), AUTHORIZER.entry, RESOURCE_METHODS.entry])];
  let outputs: { path: string; text: string }[] = [];

  beforeAll(async () => {
    const options = esbuildOptions(BUNDLING, ENTRIES[0] as string, 'unused.mjs');
    const { outfile: _, ...rest } = options;
    const result = await build({
      ...rest,
      entryPoints: ENTRIES,
      outdir: join(tmpdir(), 'bundles-local-only'),
      write: false,
      logLevel: 'error',
    });
    outputs = result.outputFiles.filter(({ path }) => path.endsWith('.js') || path.endsWith('.mjs'));
  }, 120_000);

  it('carry no call log, in any function', () => {
    expect(outputs).toHaveLength(ENTRIES.length);
    for (const { path, text } of outputs) {
      for (const marker of MARKERS) expect(text.includes(marker), `${path}: ${marker}`).toBe(false);
    }
  });
});
