import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookLibraryStack } from '../../infra/book-library-stack';
import { stackOptionsFromContext } from '../../infra/context';
import { originSecretDigest } from '../../shared/auth/viewer-address';

/** API Gateway's integration timeout when a method sets none (its REST API quotas: 50 ms to 29 s). */
const DEFAULT_INTEGRATION_TIMEOUT_MS = 29_000;

/** The variants, as `cdk synth -c name=value` gives them (bundling skipped: only the wiring is read). */
const VARIANTS: Record<string, Record<string, string>> = {
  default: {},
  prod: {
    stage: 'prod',
    publicReads: 'true',
    tracing: 'true',
    publicBaseUrl: 'https://books.example.com',
    originSecret: 'front-secret',
  },
  bufferedList: { bufferedList: 'true' },
};

type Resources = Record<string, { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] }>;

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

const synth = (context: Record<string, string>) => {
  const outdir = mkdtempSync(join(tmpdir(), 'wiring-test-'));
  outdirs.push(outdir);
  const app = new App({ outdir, context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  const options = stackOptionsFromContext((name) => app.node.tryGetContext(name));
  const stack = new BookLibraryStack(app, 'Wiring', options);
  return {
    stage: options.stage,
    resources: app.synth().getStackByName(stack.stackName).template.Resources as Resources,
  };
};

const ofType = (resources: Resources, type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

/** The function a proxy integration invokes: the `Fn::GetAtt` inside its URI. */
const invokedFunction = (uri: unknown): string | undefined =>
  /"Fn::GetAtt":\["([^"]+)","Arn"\]/.exec(JSON.stringify(uri))?.[1];

describe.each(Object.keys(VARIANTS))('the %s template', (variant) => {
  let template: ReturnType<typeof synth>;
  beforeAll(() => {
    template = synth(VARIANTS[variant] as Record<string, string>);
  }, 180_000);

  it("names the stage in every invoke permission's SourceArn as text, so no permission waits for the Stage", () => {
    const stages = ofType(template.resources, 'AWS::ApiGateway::Stage').map(([id]) => id);
    expect(stages).toHaveLength(1);
    const permissions = ofType(template.resources, 'AWS::Lambda::Permission').filter(
      ([, p]) => p.Properties.Principal === 'apigateway.amazonaws.com',
    );
    expect(permissions.length).toBeGreaterThan(20);
    for (const [id, permission] of permissions) {
      expect(JSON.stringify(permission), id).not.toMatch(new RegExp(stages.map((stage) => `"${stage}"`).join('|')));
      const [, parts] = (permission.Properties.SourceArn as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
      const arn = parts.map((part) => (typeof part === 'string' ? part : '<ref>')).join('');
      // The authorizer's permission names the API's authorizers, no stage.
      if (!arn.includes('/authorizers/'))
        expect(arn, id).toMatch(new RegExp(`:<ref>/(${template.stage}|test-invoke-stage)/[A-Z*]+/`));
    }
  });

  it('gives no function behind a proxy integration a timeout longer than the integration waits', () => {
    const methods = ofType(template.resources, 'AWS::ApiGateway::Method');
    let checked = 0;
    for (const [id, method] of methods) {
      const integration = method.Properties.Integration as { Type?: string; Uri?: unknown; TimeoutInMillis?: number };
      if (integration?.Type !== 'AWS_PROXY') continue;
      const fn = template.resources[invokedFunction(integration.Uri) ?? ''];
      expect(fn, id).toBeDefined();
      const waits = integration.TimeoutInMillis ?? DEFAULT_INTEGRATION_TIMEOUT_MS;
      expect((fn?.Properties.Timeout as number) * 1_000, id).toBeLessThanOrEqual(waits);
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('passes publicBaseUrl, when given, to every function that answers a route, the authorizer included', () => {
    const wanted = VARIANTS[variant]?.publicBaseUrl;
    // The OPTIONS/405 function and the change-events publisher write no links.
    const functions = ofType(template.resources, 'AWS::Lambda::Function').filter(
      ([id]) => !/^(ResourceMethods|ChangeEvents)/.test(id),
    );
    expect(functions.length).toBeGreaterThan(10);
    for (const [id, fn] of functions) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;
      expect(variables.PUBLIC_BASE_URL, id).toBe(wanted);
    }
  });

  it('gives the front’s secret, when given, to the authorizer alone, as its SHA-256: the template never holds the secret', () => {
    const functions = ofType(template.resources, 'AWS::Lambda::Function');
    const holders = functions.filter(([, fn]) =>
      JSON.stringify(fn.Properties.Environment ?? {}).includes('ORIGIN_SECRET'),
    );
    const wanted = VARIANTS[variant]?.originSecret;
    expect(holders.map(([id]) => id.startsWith('Authorizer'))).toEqual(wanted ? [true] : []);
    const environments = holders.map(([, fn]) => fn.Properties.Environment as { Variables: Record<string, string> });
    expect(environments.map(({ Variables }) => Variables.ORIGIN_SECRET_SHA256)).toEqual(
      wanted ? [originSecretDigest(wanted)] : [],
    );
    if (wanted) expect(JSON.stringify(template.resources)).not.toContain(wanted);
  });
});
