import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { BookLibraryStack } from '../../infra/book-library-stack';
import { ROUTES } from '../../infra/routes';

const synth = (stage: string, retainData: boolean, publicReads = false) =>
  Template.fromStack(
    new BookLibraryStack(new App(), `Test-${stage}`, {
      stage,
      retainData,
      realm: 'books',
      publicReads,
      throttling: { rateLimit: 10, burstLimit: 20 },
    }),
  );

describe('BookLibraryStack', () => {
  let template: Template;
  beforeAll(() => {
    template = synth('dev', false);
  }, 120_000);

  it('makes one arm64 Node 24 function per route, ESM-bundled with the createRequire banner', () => {
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: { Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler' },
    });
    expect(Object.keys(functions)).toHaveLength(ROUTES.length + 1); // + the authorizer
  });

  it('creates a method per route table entry, each with a Lambda proxy integration', () => {
    for (const route of ROUTES) {
      const part = route.path.split('/').at(-1);
      const methods = template.findResources('AWS::ApiGateway::Method', {
        Properties: { HttpMethod: route.method, Integration: { Type: 'AWS_PROXY' } },
      });
      expect(Object.keys(methods).some((id) => id.includes(part?.replace(/\W/g, '') ?? ''))).toBe(true);
    }
    expect(Object.keys(template.findResources('AWS::ApiGateway::Method'))).toHaveLength(ROUTES.length);
  });

  it('keeps books in an on-demand table with point-in-time recovery and the two filter indexes', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: Match.arrayWith([
        Match.objectLike({ IndexName: 'byAuthor' }),
        Match.objectLike({ IndexName: 'byYear' }),
      ]),
    });
  });

  it('answers unknown routes with 404 and function failures with a JSON 500', () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'MISSING_AUTHENTICATION_TOKEN',
      StatusCode: '404',
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'DEFAULT_5XX',
      StatusCode: '500',
      ResponseTemplates: { 'application/json': Match.stringLikeRegexp('An unexpected error occurred') },
    });
  });

  it('guards every route with an uncached REQUEST authorizer that has no identity source', () => {
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: Match.absent(),
    });
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    expect(methods.every((m) => m.Properties.AuthorizationType === 'CUSTOM')).toBe(true);
  });

  it('with publicReads, leaves only the two GET routes open', () => {
    const open = Object.values(synth('pub', false, true).findResources('AWS::ApiGateway::Method'));
    const unguarded = open
      .filter((m) => m.Properties.AuthorizationType !== 'CUSTOM')
      .map((m) => m.Properties.HttpMethod);
    expect(unguarded).toEqual(['GET', 'GET']);
  }, 120_000);

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

  it('gives the authorizer only GetItem/PutItem on the auth table, which also keeps its nonce key', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    const policies = template.findResources('AWS::IAM::Policy');
    const authorizerPolicy = JSON.stringify(Object.entries(policies).find(([id]) => id.startsWith('Authorizer'))?.[1]);
    expect(authorizerPolicy).toContain('dynamodb:GetItem');
    expect(authorizerPolicy).toContain('dynamodb:PutItem');
    expect(authorizerPolicy).not.toContain('secretsmanager');
    expect(authorizerPolicy).not.toContain('dynamodb:DeleteItem');
  });

  it('throttles the stage', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'dev',
      MethodSettings: Match.arrayWith([Match.objectLike({ ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 })]),
    });
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
    const prod = synth('prod', true);
    prod.allResourcesProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    prod.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain' });
  }, 120_000);

  it('outputs the API URL and table names', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('BooksTableName', {});
    template.hasOutput('AuthTableName', {});
  });
});
