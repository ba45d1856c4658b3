import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookLibraryStack, type BookLibraryStackProps } from '../../infra/book-library-stack';
import { RESOURCE_PATHS, ROUTES, UNROUTED_METHODS } from '../../shared/api/routes';
import { DEFAULT_LIST_MAX_BOOKS } from '../../shared/books/limits';
import { DYNAMODB_CALL_WORST_CASE_MS } from '../../shared/store/dynamodb-client';
import { BOOKS_TABLE_ACCESS, type TableAccess } from '../../shared/store/table-access';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:ops';

/** An alarm on metric math reads at most 10 metrics: a hard limit (CloudWatch User Guide, alarm limits). */
const CLOUDWATCH_ALARM_MAX_METRICS = 10;

/** Every synthesis writes its cloud assembly (bundles included) here, removed after the file's tests. */
const assemblies: string[] = [];
afterAll(() => {
  for (const dir of assemblies) rmSync(dir, { recursive: true, force: true });
});

/** The template, and the cdk-nag AwsSolutions findings no acknowledgement covers. */
const synth = (stage: string, retainData: boolean, options: Partial<BookLibraryStackProps> = {}) => {
  const outdir = mkdtempSync(join(tmpdir(), 'stack-test-'));
  assemblies.push(outdir);
  // No function bundles: the template's resources do not depend on them (bundling.test.ts builds them).
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new BookLibraryStack(app, `Test-${stage}`, {
    stage,
    retainData,
    realm: 'books',
    publicReads: false,
    throttling: { rateLimit: 10, burstLimit: 20 },
    ...options,
  });
  const template = Template.fromStack(stack);
  const findings = new AwsSolutionsChecks(app).validateScope(app).violations.map((violation) => ({
    rule: violation.ruleName,
    at: violation.violatingResources.map((resource) => resource.constructPath ?? resource.resourceLogicalId),
  }));
  return { template, findings };
};

const guardedRoutes = ROUTES.filter((route) => route.protected);
const getRoutes = ROUTES.filter((route) => route.method === 'GET');

/** A route's method or its HEAD, not one of UNROUTED_METHODS' (OPTIONS, ANY). */
const isRouteMethod = (method: Record<string, { HttpMethod?: string }>) =>
  !['OPTIONS', 'ANY'].includes(method.Properties?.HttpMethod ?? '');

describe('BookLibraryStack', () => {
  let template: Template;
  let findings: ReturnType<typeof synth>['findings'];
  /** Production with every option on: publicReads, tracing, a WAF web ACL and an alarm topic. */
  let prod: ReturnType<typeof synth>;
  beforeAll(() => {
    ({ template, findings } = synth('dev', false));
    prod = synth('prod', true, {
      publicReads: true,
      digestAlgorithms: ['SHA-256'],
      lockout: { failureLimit: 50, lockoutAfter: 5, lockoutSeconds: 60, lockoutMaxSeconds: 1800 },
      basicChallenge: 'none',
      tracing: true,
      alarmTopicArn: TOPIC,
      webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/ops/abc',
      listMaxBooks: 50_000,
    });
  }, 180_000);

  it('makes one arm64 Node 24 function per route, ESM-bundled with the createRequire banner', () => {
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: { Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler' },
    });
    expect(Object.keys(functions)).toHaveLength(ROUTES.length + 3); // + the authorizer, UNROUTED_METHODS and the change events'
  });

  it('creates a method per route table entry, each with a Lambda proxy integration', () => {
    for (const route of ROUTES) {
      const part = route.path.split('/').at(-1);
      const methods = template.findResources('AWS::ApiGateway::Method', {
        Properties: { HttpMethod: route.method, Integration: { Type: 'AWS_PROXY' } },
      });
      expect(Object.keys(methods).some((id) => id.includes(part?.replace(/\W/g, '') ?? ''))).toBe(true);
    }
    const proxied = template.findResources('AWS::ApiGateway::Method', {
      Properties: { Integration: { Type: 'AWS_PROXY' } },
    });
    // + a HEAD per GET, and OPTIONS and ANY on every resource
    expect(Object.keys(proxied)).toHaveLength(ROUTES.length + getRoutes.length + 2 * RESOURCE_PATHS.length);
  });

  it('answers HEAD on every GET route with the GET route’s function and guard', () => {
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    const heads = methods.filter((m) => m.Properties.HttpMethod === 'HEAD');
    expect(heads).toHaveLength(getRoutes.length);
    for (const head of heads) {
      const get = methods.find(
        (m) =>
          m.Properties.HttpMethod === 'GET' &&
          JSON.stringify(m.Properties.ResourceId) === JSON.stringify(head.Properties.ResourceId),
      );
      expect(head.Properties.Integration).toEqual(get?.Properties.Integration);
      expect(head.Properties.AuthorizationType).toEqual(get?.Properties.AuthorizationType);
    }
  });

  it('answers OPTIONS and every unrouted method (ANY) of each resource with one public function, never a MOCK', () => {
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    // A MOCK integration under binaryMediaTypes ['*/*'] ends in API Gateway's 500 (docs/contract.md).
    expect(methods.filter((method) => method.Properties.Integration?.Type !== 'AWS_PROXY')).toEqual([]);
    const functions = template.findResources('AWS::Lambda::Function');
    const unroutedMethodsId = Object.keys(functions).find((id) => id.startsWith(`${UNROUTED_METHODS.name}Function`));
    expect(unroutedMethodsId).toBeDefined();
    const answered = methods.filter((method) => ['OPTIONS', 'ANY'].includes(method.Properties.HttpMethod));
    expect(answered).toHaveLength(2 * RESOURCE_PATHS.length);
    for (const method of answered) {
      expect(method.Properties.AuthorizationType).toBe('NONE');
      expect(method.Properties.AuthorizerId).toBeUndefined();
      expect(JSON.stringify(method.Properties.Integration.Uri)).toContain(unroutedMethodsId);
    }
    // The function reads no table: its role may write its logs, nothing else.
    const policies = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([id]) => id.startsWith(`${UNROUTED_METHODS.name}Role`))
      .map(([, policy]) => JSON.stringify(policy));
    expect(policies.length).toBeGreaterThan(0);
    for (const policy of policies) expect(policy).not.toContain('dynamodb:');
  });

  it('gives every gateway response no-store and nosniff, and no CORS field while no origin is configured', () => {
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse'));
    // Which responses there are: test/infra/gateway-responses.test.ts.
    expect(responses.length).toBeGreaterThan(0);
    for (const response of responses) {
      expect(response.Properties.ResponseParameters).toMatchObject({
        'gatewayresponse.header.Cache-Control': "'no-store'",
        'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
      });
      expect(JSON.stringify(response.Properties.ResponseParameters)).not.toContain('Access-Control');
    }
  });

  it('serves the OpenAPI and AsyncAPI documents, the browsable reference and the pointers at / and /api without credentials and without any table access', () => {
    const methods = Object.entries(template.findResources('AWS::ApiGateway::Method'));
    const open = methods
      .filter(([, m]) => m.Properties.AuthorizationType !== 'CUSTOM' && isRouteMethod(m))
      .map(([id]) => id);
    expect(open).toHaveLength(12); // GET and HEAD
    expect(open.filter((id) => id.includes('openapi'))).toHaveLength(2);
    expect(open.filter((id) => id.includes('asyncapi'))).toHaveLength(2);
    expect(open.filter((id) => id.includes('docs'))).toHaveLength(4);
    const functionIds = Object.keys(template.findResources('AWS::Lambda::Function'));
    for (const name of ['GetApiIndex', 'GetRootIndex']) {
      const functionId = functionIds.find((id) => id.startsWith(`${name}Function`));
      const served = methods.filter(([, m]) =>
        JSON.stringify(m.Properties.Integration.Uri).includes(`"${functionId}"`),
      );
      expect(served.map(([, m]) => [m.Properties.HttpMethod, m.Properties.AuthorizationType]).sort(), name).toEqual([
        ['GET', 'NONE'],
        ['HEAD', 'NONE'],
      ]);
    }
    // `/` is the API's root resource itself, not a resource below it.
    const rootGet = methods.find(
      ([, m]) =>
        m.Properties.HttpMethod === 'GET' && JSON.stringify(m.Properties.ResourceId).includes('RootResourceId'),
    );
    expect(rootGet).toBeDefined();
    for (const name of [
      'GetOpenApi',
      'GetAsyncApi',
      'GetApiReference',
      'GetApiReferenceAsset',
      'GetApiIndex',
      'GetRootIndex',
    ]) {
      const policy = JSON.stringify(
        Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) => id.startsWith(`${name}Role`))?.[1],
      );
      expect(policy, name).not.toContain('dynamodb:');
    }
  });

  it('keeps books in an on-demand table with point-in-time recovery and the three filter indexes, the newest last', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        Match.objectLike({ IndexName: 'byAuthorShard' }),
        Match.objectLike({ IndexName: 'byYearShard' }),
        // Added to tables of the version before: one index per deployment is all DynamoDB allows.
        Match.objectLike({
          IndexName: 'byAuthorYear',
          KeySchema: [
            { AttributeName: 'authorShard', KeyType: 'HASH' },
            { AttributeName: 'yearId', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        }),
      ],
    });
  });

  it('answers unknown routes with 404, and keeps the status API Gateway chose for its own 5xx (504 stays 504)', () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'MISSING_AUTHENTICATION_TOKEN',
      StatusCode: '404',
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'DEFAULT_5XX',
      StatusCode: Match.absent(),
      ResponseTemplates: { 'application/json': '{"message":"An unexpected error occurred"}' },
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'DEFAULT_4XX',
      StatusCode: Match.absent(),
      ResponseTemplates: { 'application/json': '{"message":$context.error.messageString}' },
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'INTEGRATION_TIMEOUT',
      StatusCode: '504',
      ResponseTemplates: { 'application/json': Match.stringLikeRegexp('"status":504') },
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'REQUEST_TOO_LARGE',
      StatusCode: '413',
      ResponseTemplates: { 'application/json': '{"status":413,"message":"Request body must be at most 65536 bytes"}' },
    });
  });

  it('writes every generated body as UTF-8 JSON, with a timestamp only if ISO 8601 (none can be: so none)', () => {
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse'));
    expect(responses.length).toBeGreaterThanOrEqual(7);
    for (const { Properties } of responses) {
      expect(Properties.ResponseParameters['gatewayresponse.header.Content-Type']).toBe(
        "'application/json; charset=utf-8'",
      );
      const body = Properties.ResponseTemplates['application/json'] as string;
      expect(body).not.toMatch(/requestTime|timestamp/);
      // A body is JSON once the gateway substitutes its one variable (already a quoted JSON string).
      if (body !== '') expect(() => JSON.parse(body.replace('$context.error.messageString', '"x"'))).not.toThrow();
      const status = /"status":(\d+)/.exec(body)?.[1];
      if (status !== undefined) expect(status).toBe(Properties.StatusCode);
    }
  });

  it('hands every request body to the functions byte for byte: every media type is binary (base64)', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
  });

  it('guards every book route with an uncached REQUEST authorizer that has no identity source', () => {
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: Match.absent(),
    });
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    const guardedGets = guardedRoutes.filter((route) => route.method === 'GET');
    expect(methods.filter((m) => m.Properties.AuthorizationType === 'CUSTOM')).toHaveLength(
      guardedRoutes.length + guardedGets.length,
    );
  });

  it('with publicReads, leaves only the GET routes open (two book reads, the two documents, the reference and the pointers)', () => {
    const open = Object.values(prod.template.findResources('AWS::ApiGateway::Method'));
    const unguarded = open
      .filter((m) => m.Properties.AuthorizationType !== 'CUSTOM' && isRouteMethod(m))
      .map((m) => m.Properties.HttpMethod);
    expect(unguarded.sort()).toEqual([...Array(8).fill('GET'), ...Array(8).fill('HEAD')]);
  });

  it('turns a Deny into 401 with the challenge from the authorizer context', () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'ACCESS_DENIED',
      StatusCode: '401',
      ResponseParameters: { 'gatewayresponse.header.WWW-Authenticate': 'context.authorizer.challenge' },
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNAUTHORIZED',
      StatusCode: '401',
      ResponseParameters: { 'gatewayresponse.header.WWW-Authenticate': '\'Basic realm="books"\'' },
    });
  });

  it('gives the authorizer only GetItem, PutItem (nonces, its key) and UpdateItem (failure records) on the auth table', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    const policies = template.findResources('AWS::IAM::Policy');
    const authorizerPolicy = JSON.stringify(Object.entries(policies).find(([id]) => id.startsWith('Authorizer'))?.[1]);
    const actions = [...new Set(authorizerPolicy.match(/dynamodb:\w+/g))].sort();
    expect(actions).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(authorizerPolicy).not.toContain('secretsmanager');
  });

  it('hands the lockout options to the authorizer: the defaults, or what the stack was given', () => {
    const variablesOf = (t: Template) =>
      Object.entries(t.findResources('AWS::Lambda::Function')).find(([id]) => id.startsWith('Authorizer'))?.[1]
        .Properties.Environment.Variables;
    expect(variablesOf(template)).toMatchObject({
      AUTH_FAILURE_LIMIT: '100',
      AUTH_LOCKOUT_AFTER: '5',
      AUTH_LOCKOUT_SECONDS: '60',
      AUTH_LOCKOUT_MAX_SECONDS: '900',
    });
    expect(variablesOf(prod.template)).toMatchObject({ AUTH_FAILURE_LIMIT: '50', AUTH_LOCKOUT_MAX_SECONDS: '1800' });
  });

  it('offers MD5 Digest then Basic by default, and what the options ask for otherwise', () => {
    const authorizerEnvironment = (t: Template) =>
      Object.entries(t.findResources('AWS::Lambda::Function')).find(([id]) => id.startsWith('Authorizer'))?.[1]
        .Properties.Environment.Variables;
    expect(authorizerEnvironment(template)).toMatchObject({ DIGEST_ALGORITHM: 'MD5', BASIC_CHALLENGE: 'last' });
    expect(authorizerEnvironment(prod.template)).toMatchObject({
      DIGEST_ALGORITHM: 'SHA-256',
      BASIC_CHALLENGE: 'none',
    });
  });

  it('streams the list: STREAM transfer mode through the response-streaming invocation URI, as long as its function runs', () => {
    const listFunction = Object.keys(
      template.findResources('AWS::Lambda::Function', { Properties: { Timeout: 300 } }),
    ).filter((id) => id.startsWith('ListBooks'));
    expect(listFunction).toHaveLength(1);
    const streamed = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
      (method) => method.Properties.Integration.ResponseTransferMode === 'STREAM',
    );
    expect(streamed).toHaveLength(2);
    const [list, head] = streamed as Array<{
      Properties: { HttpMethod: string; Integration: Record<string, unknown> };
    }>;
    expect([list?.Properties.HttpMethod, head?.Properties.HttpMethod].sort()).toEqual(['GET', 'HEAD']);
    if (!list) return;
    expect(list.Properties.Integration.TimeoutInMillis).toBe(300_000);
    const uri = JSON.stringify(list.Properties.Integration.Uri);
    expect(uri).toContain(':lambda:path/2021-11-15/functions/');
    expect(uri).toContain('/response-streaming-invocations');
    expect(uri).toContain(listFunction[0]);
    // Every other route stays buffered, through the ordinary invocation URI.
    const buffered = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
      (method) =>
        method.Properties.Integration.Type === 'AWS_PROXY' &&
        method.Properties.Integration.ResponseTransferMode !== 'STREAM',
    );
    expect(buffered).toHaveLength(ROUTES.length - 1 + getRoutes.length - 1 + 2 * RESOURCE_PATHS.length);
    for (const method of buffered) expect(JSON.stringify(method.Properties.Integration.Uri)).toContain('/invocations');
  });

  it('tells the two book reads’ functions whether reads are public (they refuse a read without a user otherwise)', () => {
    const publicReadsOf = (t: Template) =>
      Object.entries(t.findResources('AWS::Lambda::Function'))
        .filter(([id]) => /^(ListBooks|GetBook)Function/.test(id))
        .map(([, fn]) => fn.Properties.Environment.Variables.PUBLIC_READS);
    expect(publicReadsOf(prod.template)).toEqual(['true', 'true']);
    expect(publicReadsOf(template)).toEqual(['false', 'false']);
  });

  it('sets the list cap on the list function only: the operator’s, else the default', () => {
    const capped = Object.entries(
      prod.template.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { LIST_MAX_BOOKS: '50000' } } },
      }),
    );
    expect(capped.map(([id]) => id.replace(/Function.*/, ''))).toEqual(['ListBooks']);
    const byDefault = Object.entries(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { LIST_MAX_BOOKS: String(DEFAULT_LIST_MAX_BOOKS) } } },
      }),
    );
    expect(byDefault.map(([id]) => id.replace(/Function.*/, ''))).toEqual(['ListBooks']);
    expect(JSON.stringify(template.findResources('AWS::Lambda::Function')).match(/LIST_MAX_BOOKS/g)).toHaveLength(1);
  });

  it('throttles the stage', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'dev',
      MethodSettings: Match.arrayWith([Match.objectLike({ ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 })]),
    });
  });

  it("gives every function a timeout above the DynamoDB client's worst case, so an outage ends in the handler's 500", () => {
    const timeouts = Object.values(template.findResources('AWS::Lambda::Function')).map(
      (resource) => resource.Properties.Timeout as number,
    );
    expect(timeouts.length).toBe(ROUTES.length + 3);
    for (const seconds of timeouts) {
      for (const worst of Object.values(DYNAMODB_CALL_WORST_CASE_MS)) expect(seconds * 1000).toBeGreaterThan(worst);
    }
  });

  it('gives read routes read-only access to the books table', () => {
    const policies = template.findResources('AWS::IAM::Policy');
    const listPolicy = Object.entries(policies).find(([id]) => id.startsWith('ListBooks'));
    const actions = JSON.stringify(listPolicy?.[1]);
    expect(actions).toContain('dynamodb:Query');
    expect(actions).not.toContain('dynamodb:PutItem');
    expect(actions).not.toContain('dynamodb:DeleteItem');
  });

  it('destroys dev tables with the stack but retains and protects production data', () => {
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
    prod.template.allResourcesProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    prod.template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain' });
    prod.template.hasResource('AWS::Logs::LogGroup', { DeletionPolicy: 'Retain' }); // the access logs
  });

  it('outputs the API URL and table names', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('OpenApiUrl', {});
    template.hasOutput('BooksTableName', {});
    template.hasOutput('AuthTableName', {});
    template.hasOutput('EventBusName', {});
    template.hasOutput('EventBusArn', {});
  });

  describe('secure by default', () => {
    it('passes cdk-nag AwsSolutions with no unacknowledged finding, with and without every option', () => {
      expect(findings).toEqual([]);
      expect(prod.findings).toEqual([]);
    });

    it('gives every Checkov and cfn-lint skip in the template its written reason', () => {
      for (const { template: t } of [{ template }, prod]) {
        const resources = Object.entries(t.toJSON().Resources as Record<string, { Metadata?: Record<string, any> }>);
        const skipped = resources.filter(([, r]) => r.Metadata?.checkov || r.Metadata?.['cfn-lint']);
        expect(skipped.length).toBeGreaterThan(0);
        for (const [id, { Metadata: metadata = {} }] of skipped) {
          for (const skip of metadata.checkov?.skip ?? []) {
            expect(skip.id, id).toMatch(/^CKV_AWS_\d+$/);
            expect(skip.comment?.length, `${id} ${skip.id}`).toBeGreaterThan(40);
          }
          const lint = metadata['cfn-lint'];
          for (const check of lint?.config.ignore_checks ?? []) {
            expect(lint.reasons[check]?.length, `${id} ${check}`).toBeGreaterThan(40);
          }
        }
      }
    });

    it('grants no wildcard action and attaches no AWS managed policy to a function role', () => {
      for (const { template: t } of [{ template }, prod]) {
        const statements = Object.values(t.findResources('AWS::IAM::Policy')).flatMap(
          (p) => p.Properties.PolicyDocument.Statement as { Action: string | string[] }[],
        );
        const actions = statements.flatMap((st) => [st.Action].flat());
        expect(actions.filter((action) => action.includes('*'))).toEqual([]);
        const functionRoles = Object.entries(t.findResources('AWS::IAM::Role')).filter(([, r]) =>
          JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('lambda.amazonaws.com'),
        );
        expect(functionRoles).toHaveLength(ROUTES.length + 3);
        expect(functionRoles.every(([, r]) => r.Properties.ManagedPolicyArns === undefined)).toBe(true);
      }
    });

    it('grants the books table only the item actions the store sends, on the table and named indexes', () => {
      // The book store's modules: dynamodb-book-store.ts and what it imports from shared/store, followed through.
      const modules = new Map<string, string>();
      const follow = (file: string) => {
        if (modules.has(file)) return;
        const text = readFileSync(file, 'utf8');
        modules.set(file, text);
        for (const [, local] of text.matchAll(/from '(\.\.?\/[\w./-]+)'/g)) {
          const target = join(dirname(file), `${local}.ts`);
          if (target.startsWith('shared/store/')) follow(target);
        }
      };
      follow('shared/store/books/dynamodb-book-store.ts');
      expect(modules.has('shared/store/books/book-transactions.ts')).toBe(true);
      expect(modules.has('shared/store/books/schema-version.ts')).toBe(true);
      expect(modules.has('shared/store/named-transactions.ts')).toBe(true);
      const source = [...modules.values()].join('\n');
      const used = new Set<string>();
      const toAction: Record<string, string> = {
        GetCommand: 'dynamodb:GetItem',
        PutCommand: 'dynamodb:PutItem',
        UpdateCommand: 'dynamodb:UpdateItem',
        DeleteCommand: 'dynamodb:DeleteItem',
        QueryCommand: 'dynamodb:Query',
        paginateQuery: 'dynamodb:Query',
        ScanCommand: 'dynamodb:Scan',
        paginateScan: 'dynamodb:Scan',
        BatchGetCommand: 'dynamodb:BatchGetItem',
        BatchWriteCommand: 'dynamodb:BatchWriteItem',
        'Put:': 'dynamodb:PutItem',
        'Update:': 'dynamodb:UpdateItem',
        'Delete:': 'dynamodb:DeleteItem',
        'ConditionCheck:': 'dynamodb:ConditionCheckItem',
      };
      for (const [token, action] of Object.entries(toAction)) {
        if (new RegExp(`\\b${token.replace(':', '\\s*:')}`).test(source)) used.add(action);
      }
      expect(used.size).toBeGreaterThan(0);
      const declared = new Set(
        Object.values(BOOKS_TABLE_ACCESS as Record<string, TableAccess>).flatMap((access) => [
          ...access.table,
          ...(access.indexes ?? []),
          ...(access.idBlocksItem ?? []),
        ]),
      );
      expect([...declared].sort()).toEqual([...used].sort());
      const policyOf = (fn: string) =>
        JSON.stringify(
          Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) => id.startsWith(fn))?.[1],
        );
      expect(policyOf('ListBooks')).toContain('/index/byAuthorShard');
      expect(policyOf('ListBooks')).toContain('/index/byAuthorYear');
      expect(policyOf('ListBooks')).not.toContain('/index/*');
      for (const fn of ['GetBook', 'CreateBook', 'ReplaceBook', 'PatchBook', 'DeleteBook']) {
        expect(policyOf(fn)).toContain('dynamodb:GetItem');
        expect(policyOf(fn), fn).not.toContain('/index/');
      }
    });

    it('writes JSON access logs of context fields only, and execution logs without request data', () => {
      const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0]?.Properties;
      const format = JSON.parse(stage.AccessLogSetting.Format);
      expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
      expect(stage.AccessLogSetting.Format).not.toMatch(/\$(input|method\.request)|header/i);
      expect(stage.MethodSettings).toEqual(
        expect.arrayContaining([expect.objectContaining({ LoggingLevel: 'ERROR', DataTraceEnabled: false })]),
      );
      template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
      const retention = Object.values(template.findResources('AWS::Logs::LogGroup')).map(
        (g) => g.Properties.RetentionInDays,
      );
      expect(retention.every((days) => typeof days === 'number')).toBe(true);
    });

    it('encrypts the tables, which also hold the nonce key (no separate secret to rotate)', () => {
      template.allResourcesProperties('AWS::DynamoDB::Table', { SSESpecification: { SSEEnabled: true } });
      template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    });
  });

  describe('operations', () => {
    it("alarms on the 5xx rate, each function's throttles, authorizer errors, account lockouts and the change events", () => {
      const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
      const functionCount = Object.keys(template.findResources('AWS::Lambda::Function')).length;
      expect(alarms).toHaveLength(3 + functionCount + 3); // + iterator age, unpublished events, dead letters
      expect(alarms.find((a) => a.MetricName === 'AccountLockouts')).toMatchObject({
        Namespace: 'BookLibrary',
        Dimensions: [{ Name: 'service', Value: 'book-library' }],
        Statistic: 'Sum',
        Period: 300,
        Threshold: 10,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(JSON.stringify(alarms)).toContain('5XXError');
      const throttles = alarms.filter((a) => a.MetricName === 'Throttles' && a.Namespace === 'AWS/Lambda');
      expect(throttles).toHaveLength(functionCount);
      const watched = throttles.map((a) => JSON.stringify(a.Dimensions));
      expect(new Set(watched).size).toBe(functionCount);
      expect(alarms.some((a) => a.MetricName === 'Errors' && a.Namespace === 'AWS/Lambda')).toBe(true);
      expect(alarms.every((a) => a.AlarmActions === undefined)).toBe(true);
      const prodAlarms = Object.values(prod.template.findResources('AWS::CloudWatch::Alarm'));
      expect(prodAlarms.every((a) => JSON.stringify(a.Properties.AlarmActions) === JSON.stringify([TOPIC]))).toBe(true);
    });

    it("keeps every alarm within CloudWatch's limits on metric math (10 metrics, 10 expressions, 20 queries)", () => {
      for (const { template: synthesized } of [{ template }, prod]) {
        for (const alarm of Object.values(synthesized.findResources('AWS::CloudWatch::Alarm'))) {
          const queries: { MetricStat?: unknown; Expression?: unknown }[] = alarm.Properties.Metrics ?? [];
          expect(queries.filter((query) => query.MetricStat).length).toBeLessThanOrEqual(CLOUDWATCH_ALARM_MAX_METRICS);
          expect(queries.filter((query) => query.Expression).length).toBeLessThanOrEqual(10);
          expect(queries.length).toBeLessThanOrEqual(20);
        }
      }
    });

    it('switches active tracing on for the stage and every function only when asked', () => {
      template.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: false });
      expect(JSON.stringify(template.findResources('AWS::Lambda::Function'))).not.toContain('"Active"');
      prod.template.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: true });
      prod.template.allResourcesProperties('AWS::Lambda::Function', { TracingConfig: { Mode: 'Active' } });
    });

    it('associates the optional WAF web ACL with the stage', () => {
      template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
      prod.template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
    });

    it('gives the functions the metrics namespace and INFO logs, and the OpenAPI function the publicReads flag', () => {
      template.allResourcesProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({ POWERTOOLS_METRICS_NAMESPACE: 'BookLibrary', POWERTOOLS_LOG_LEVEL: 'INFO' }),
        },
      });
      prod.template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: Match.objectLike({ PUBLIC_READS: 'true' }) },
      });
      // Pointing at another DynamoDB is for `sam local` templates only (the samLocal option).
      expect(JSON.stringify(prod.template.toJSON())).not.toContain('DYNAMODB_ENDPOINT');
    });
  });
});
