import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkContextNames,
  InvalidContextError,
  knownContextOptions,
  stackOptionsFromContext,
} from '../../infra/context';
import { DEFAULT_LIST_MAX_BOOKS } from '../../shared/books/limits';

const options = (context: Record<string, string> = {}) => stackOptionsFromContext((name) => context[name]);

describe('stack options from cdk context', () => {
  it('defaults to a dev stage with every route protected, MD5 Digest then Basic and 50 requests/s, burst 100', () => {
    expect(options()).toEqual({
      stage: 'dev',
      realm: 'books',
      digestAlgorithms: ['MD5'],
      basicChallenge: 'last',
      lockout: { failureLimit: 100, lockoutAfter: 5, lockoutSeconds: 60, lockoutMaxSeconds: 900 },
      listMaxBooks: DEFAULT_LIST_MAX_BOOKS,
      publicReads: false,
      corsAllowedOrigins: [],
      requireIfMatch: false,
      retainData: false,
      throttling: { rateLimit: 50, burstLimit: 100 },
      tracing: false,
      webAclArn: undefined,
      alarmTopicArn: undefined,
      samLocal: false,
      bufferedList: false,
      architecture: 'arm64',
    });
  });

  it("runs the functions on arm64, or under sam local on this machine's processor unless told otherwise", () => {
    expect(options({ architecture: 'x86_64' }).architecture).toBe('x86_64');
    expect(options({ samLocal: 'true' }).architecture).toBe(process.arch === 'arm64' ? 'arm64' : 'x86_64');
    expect(options({ samLocal: 'true', architecture: 'arm64' }).architecture).toBe('arm64');
  });

  it('reads every option, and a prod stage always retains its data', () => {
    expect(
      options({
        stage: 'prod',
        realm: 'library',
        digestAlgorithm: 'SHA-256',
        basicChallenge: 'first',
        publicReads: 'true',
        requireIfMatch: 'true',
        throttleRate: '100',
        throttleBurst: '200',
        tracing: 'true',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops',
      }),
    ).toMatchObject({
      stage: 'prod',
      realm: 'library',
      digestAlgorithms: ['SHA-256'],
      basicChallenge: 'first',
      publicReads: true,
      requireIfMatch: true,
      retainData: true,
      throttling: { rateLimit: 100, burstLimit: 200 },
      tracing: true,
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops',
    });
    expect(options({ stage: 'test', retainData: 'true' }).retainData).toBe(true);
  });

  it('reads the failure limit and the lockout schedule, refusing what is not a positive whole number', () => {
    expect(
      options({ failureLimit: '20', lockoutAfter: '3', lockoutSeconds: '30', lockoutMaxSeconds: '3600' }).lockout,
    ).toEqual({ failureLimit: 20, lockoutAfter: 3, lockoutSeconds: 30, lockoutMaxSeconds: 3600 });
    expect(() => options({ failureLimit: '0' })).toThrow(
      new InvalidContextError('Context option failureLimit="0" is not a positive whole number'),
    );
    expect(() => options({ lockoutAfter: '2.5' })).toThrow(InvalidContextError);
    expect(() => options({ lockoutSeconds: '600', lockoutMaxSeconds: '300' })).toThrow(
      'Context option lockoutMaxSeconds must be at least lockoutSeconds',
    );
  });

  it('offers the Digest algorithms in the order given', () => {
    expect(options({ digestAlgorithm: 'SHA-256,MD5' }).digestAlgorithms).toEqual(['SHA-256', 'MD5']);
    expect(options({ digestAlgorithm: 'md5' }).digestAlgorithms).toEqual(['MD5']);
  });

  it('puts the Basic challenge where the option says, or leaves it out', () => {
    expect(options({ basicChallenge: 'none' }).basicChallenge).toBe('none');
    expect(options({ basicChallenge: 'First' }).basicChallenge).toBe('first');
  });

  it.each([
    ['throttleRate', 'fast', 'a positive number'],
    ['throttleBurst', '0', 'a positive number'],
    ['publicReads', 'yes', '"true" or "false"'],
    ['tracing', 'TRUE', '"true" or "false"'],
    ['digestAlgorithm', 'SHA-512', '"MD5", "SHA-256" or "MD5,SHA-256"'],
    ['digestAlgorithm', 'MD5,MD5', '"MD5", "SHA-256" or "MD5,SHA-256"'],
    ['basicChallenge', 'middle', '"last", "first" or "none"'],
    ['realm', "it's", 'without quotes or backslashes'],
    ['realm', 'say "hi"', 'without quotes or backslashes'],
    ['realm', 'back\\slash', 'without quotes or backslashes'],
    ['realm', 'tab\there', 'printable ASCII'],
    ['stage', 'my_stage', 'letters, digits and hyphens'],
    ['architecture', 'x86', '"arm64" or "x86_64"'],
  ])('refuses %s=%s, naming the option and what it expects', (name, value, expected) => {
    expect(() => options({ [name]: value })).toThrow(InvalidContextError);
    expect(() => options({ [name]: value })).toThrow(`${name}="${value}"`);
    expect(() => options({ [name]: value })).toThrow(expected);
  });
});

describe('context option names', () => {
  it('refuses a name the stack does not read, naming the nearest known one', () => {
    expect(() => checkContextNames({ stagee: 'prod' })).toThrow(InvalidContextError);
    expect(() => checkContextNames({ stagee: 'prod' })).toThrow('unknown option stagee; did you mean stage?');
    expect(() => checkContextNames({ throtleRate: '5', listmaxbooks: '9' })).toThrow(
      'unknown option throtleRate; did you mean throttleRate?; unknown option listmaxbooks; did you mean listMaxBooks?',
    );
    expect(() => checkContextNames({ colour: 'blue' })).toThrow(/unknown option colour \(the options are listed/);
  });

  it('knows exactly the names the stack reads, and leaves the CDK’s own context alone', () => {
    expect(knownContextOptions()).toContain('stage');
    expect(knownContextOptions()).toContain('lockoutMaxSeconds');
    expect(() =>
      checkContextNames({
        ...Object.fromEntries(knownContextOptions().map((name) => [name, 'x'])),
        '@aws-cdk/core:target-partitions': ['aws'],
        '@aws-cdk/core:failSynthOnValidationErrors': true,
        'aws:cdk:enable-path-metadata': true,
        'aws:cdk:bundling-stacks': ['**'],
        'availability-zones:account=123456789012:region=eu-west-1': ['eu-west-1a'],
        'acknowledged-issue-numbers': [32775],
      }),
    ).not.toThrow();
  });

  it.each([
    [
      'stagee=prod',
      'error: Context unknown option stagee; did you mean stage? (the options are listed in docs/operations.md#deploying)',
    ],
    ['throttleRate=fast', 'error: Context option throttleRate="fast" is not valid: expected a positive number'],
  ])(
    'stops `cdk synth -c %s` with one line and no stack trace',
    (option, line) => {
      const [name, value] = option.split('=') as [string, string];
      const out = mkdtempSync(join(tmpdir(), 'cdk-context-'));
      try {
        const run = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
          encoding: 'utf8',
          env: {
            ...process.env,
            NODE_NO_WARNINGS: '1',
            CDK_CONTEXT_JSON: JSON.stringify({ [name]: value }),
            CDK_OUTDIR: out,
          },
          timeout: 60_000,
        });
        expect(run.status).toBe(1);
        expect(run.stderr.trim()).toBe(line);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it('reads publicBaseUrl as an http(s) URL, without a trailing slash, and refuses anything else naming it', () => {
    expect(options({ publicBaseUrl: 'https://books.example.com/' }).publicBaseUrl).toBe('https://books.example.com');
    expect(options().publicBaseUrl).toBeUndefined();
    for (const value of ['books.example.com', 'https://books.example.com/?v=1', 'ftp://books.example.com']) {
      expect(() => options({ publicBaseUrl: value }), value).toThrow(InvalidContextError);
      expect(() => options({ publicBaseUrl: value }), value).toThrow(`Context option publicBaseUrl "${value}"`);
    }
  });
});
