import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../bench/bundles';
import { BUNDLING } from '../../infra/bundling';
import { AUTHORIZER, ROUTES, UNROUTED_METHODS } from '../../shared/api/routes';
import { type EventBridgeStandin, startEventBridgeStandin } from '../support/eventbridge-standin';
import { book, created } from '../support/stream-records';

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
 * The change-events function as the stack bundles it, run in a fresh process with a Lambda-like
 * environment against a local PutEvents stand-in: the bundle loads, finds its credentials in the
 * environment, and puts one stream record's event on the bus.
 */
describe('the change-events bundle', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'events-bundle-test-'));
  const bundle = join(outDir, 'events.mjs');
  let metafile: Metafile;
  let standin: EventBridgeStandin;

  beforeAll(async () => {
    standin = await startEventBridgeStandin();
    const result = await build({
      ...esbuildOptions(BUNDLING, 'functions/events/handler.ts', bundle),
      logLevel: 'error',
    });
    metafile = result.metafile as Metafile;
  }, 60_000);
  afterAll(async () => {
    await standin.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('carries the shared mapping, Powertools batch and the EventBridge client, and no other credential source', () => {
    const inputs = Object.keys(metafile.inputs).join('\n');
    for (const part of [
      'shared/events/book-event.ts',
      '/@aws-lambda-powertools/batch/',
      '/@aws-sdk/client-eventbridge/',
    ]) {
      expect(inputs).toContain(part);
    }
    expect(inputs).not.toContain('/credential-provider-node/');
    expect(inputs).toContain('infra/lambda-credential-provider.ts');
  });

  it('publishes a stream record’s event with the execution role’s credentials from the environment', async () => {
    const event = { Records: [created(book(7, 'Bundled'))] };
    const script = `import(${JSON.stringify(bundle)}).then(async ({ handler }) => console.log(JSON.stringify(await handler(${JSON.stringify(event)}, {}))))`;
    const { AWS_PROFILE, ...rest } = process.env;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        ...rest,
        HOME: outDir,
        AWS_ACCESS_KEY_ID: 'AKIDLAMBDA',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_SESSION_TOKEN: 'token',
        AWS_REGION: 'eu-west-1',
        AWS_ENDPOINT_URL_EVENTBRIDGE: standin.endpoint,
        EVENT_BUS_NAME: 'book-library-test',
        POWERTOOLS_METRICS_DISABLED: 'true',
      },
      timeout: 20_000,
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({ batchItemFailures: [] });
    expect(standin.accepted.map((entry) => JSON.parse(entry.Detail).subject)).toEqual(['7']);
  });
});

/**
 * What only `npm start` and the tests use stays out of every function: the DynamoDB call log
 * (local/call-log.ts), the services kept per function and the fault tests' seam are attached from
 * outside, so no bundle the stack builds names them.
 */
describe('Lambda bundles and local-only code', () => {
  const MARKERS = {
    'the call log': ['DYNAMODB_CALL_LOG', 'recordDynamoDbCalls', 'local/call-log.ts'],
    'the services kept per function': ['runningFunction', 'runAsFunction'],
    'the fault tests’ seam': ['booksDocumentClient'],
  };
  const ENTRIES = [
    ...new Set([
      ...ROUTES.map(({ entry }) => entry),
      AUTHORIZER.entry,
      UNROUTED_METHODS.entry,
      'functions/events/handler.ts',
    ]),
  ];
  let outputs: { path: string; text: string }[] = [];

  beforeAll(async () => {
    const options = esbuildOptions(BUNDLING, ENTRIES[0] as string, 'unused.mjs');
    const { outfile: _, ...rest } = options;
    const result = await build({
      ...rest,
      entryPoints: ENTRIES,
      outdir: join(tmpdir(), 'bundles-local-only'),
      // The stack's code, tree-shaken as the stack's is, its names kept so that the markers can be found.
      minify: false,
      minifySyntax: true,
      minifyWhitespace: true,
      write: false,
      logLevel: 'error',
    });
    outputs = result.outputFiles.filter(({ path }) => path.endsWith('.js') || path.endsWith('.mjs'));
  }, 120_000);

  it.each(Object.entries(MARKERS))('carry not %s, in any function', (_, markers) => {
    expect(outputs).toHaveLength(ENTRIES.length);
    for (const { path, text } of outputs) {
      for (const marker of markers) expect(text.includes(marker), `${path}: ${marker}`).toBe(false);
    }
  });
});
