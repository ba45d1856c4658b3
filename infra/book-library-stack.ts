import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { AUTH_TABLE, BOOKS_TABLE, type KeyAttribute, type TableDefinition } from '../shared/store/tables';
import { AUTHORIZER, ROUTES, requiresAuth } from './routes';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface BookLibraryStackProps extends StackProps {
  /** Stage name of the API; also part of resource names. */
  stage: string;
  /** Keep tables (and their data) when the stack is deleted; on for production. */
  retainData: boolean;
  /** Authentication realm (user records are per realm). */
  realm: string;
  /** The two GET routes need no credentials. */
  publicReads: boolean;
  /** Steady-state requests per second and burst for the whole stage. */
  throttling: { rateLimit: number; burstLimit: number };
}

/**
 * esbuild settings every function shares (`npm run bench` builds with exactly these). The SDK is
 * bundled (not the runtime's copy) and read through its `module` entry points, so unused parts are
 * dropped; the banner gives ESM bundles the `require` the AWS SDK expects. The source map is a file
 * beside the bundle that nothing references and `--enable-source-maps` is not set, so it costs
 * nothing at run time; map a minified stack trace with it offline (it is in cdk.out).
 */
export const BUNDLING: nodejs.BundlingOptions = {
  format: nodejs.OutputFormat.ESM,
  mainFields: ['module', 'main'],
  target: 'node22',
  minify: true,
  sourceMap: true,
  sourceMapMode: nodejs.SourceMapMode.EXTERNAL,
  sourcesContent: false,
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  externalModules: [],
};

/** Memory of every function: where cost × duration is lowest (see README, Benchmarks). */
export const FUNCTION_MEMORY_MB = 512;

const attributeType = (key: KeyAttribute) =>
  key.type === 'S' ? dynamodb.AttributeType.STRING : dynamodb.AttributeType.NUMBER;

export class BookLibraryStack extends Stack {
  readonly api: apigateway.RestApi;
  readonly booksTable: dynamodb.Table;
  readonly authTable: dynamodb.Table;

  constructor(scope: Construct, id: string, props: BookLibraryStackProps) {
    super(scope, id, props);
    const removalPolicy = props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.booksTable = this.table('BooksTable', BOOKS_TABLE, removalPolicy, props.retainData);
    this.authTable = this.table('AuthTable', AUTH_TABLE, removalPolicy, props.retainData);

    this.api = new apigateway.RestApi(this, 'Api', {
      restApiName: `book-library-${props.stage}`,
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      deployOptions: {
        stageName: props.stage,
        throttlingRateLimit: props.throttling.rateLimit,
        throttlingBurstLimit: props.throttling.burstLimit,
      },
    });
    this.addGatewayResponses(props.realm);
    const authorizer = this.authorizer(props.realm);

    for (const route of ROUTES) {
      const fn = this.routeFunction(route.name, route.entry, {
        BOOKS_TABLE_NAME: this.booksTable.tableName,
      });
      if (route.access === 'read') this.booksTable.grantReadData(fn);
      else this.booksTable.grantReadWriteData(fn);
      this.api.root
        .resourceForPath(route.path)
        .addMethod(
          route.method,
          new apigateway.LambdaIntegration(fn),
          requiresAuth(route, props.publicReads)
            ? { authorizer, authorizationType: apigateway.AuthorizationType.CUSTOM }
            : {},
        );
    }

    new CfnOutput(this, 'ApiUrl', { value: `${this.api.url.replace(/\/$/, '')}/api/books` });
    new CfnOutput(this, 'BooksTableName', { value: this.booksTable.tableName });
    new CfnOutput(this, 'AuthTableName', { value: this.authTable.tableName });
  }

  private table(id: string, definition: TableDefinition, removalPolicy: RemovalPolicy, protect: boolean) {
    const table = new dynamodb.Table(this, id, {
      partitionKey: { name: definition.partitionKey.name, type: attributeType(definition.partitionKey) },
      ...(definition.sortKey && {
        sortKey: { name: definition.sortKey.name, type: attributeType(definition.sortKey) },
      }),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: protect,
      removalPolicy,
      ...(definition.timeToLiveAttribute && { timeToLiveAttribute: definition.timeToLiveAttribute }),
    });
    for (const index of definition.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey.name, type: attributeType(index.partitionKey) },
        ...(index.sortKey && { sortKey: { name: index.sortKey.name, type: attributeType(index.sortKey) } }),
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
    return table;
  }

  protected routeFunction(id: string, entry: string, environment: Record<string, string>) {
    return new nodejs.NodejsFunction(this, id, {
      entry: path.join(PROJECT_ROOT, entry),
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: FUNCTION_MEMORY_MB,
      timeout: Duration.seconds(10),
      environment: { ...environment, POWERTOOLS_SERVICE_NAME: 'book-library' },
      bundling: BUNDLING,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      logGroup: new logs.LogGroup(this, `${id}Logs`, {
        retention: logs.RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    });
  }

  /**
   * The REQUEST authorizer: no result cache (every nonce is single-use) and no identity source, or
   * API Gateway would answer a request without Authorization itself, with no challenge.
   */
  private authorizer(realm: string) {
    const fn = this.routeFunction(AUTHORIZER.name, AUTHORIZER.entry, {
      AUTH_TABLE_NAME: this.authTable.tableName,
      AUTH_REALM: realm,
      NONCE_LIFETIME_SECONDS: '300',
    });
    // PutItem also creates the nonce HMAC key item on first use (see functions/authorizer/authenticator.ts).
    this.authTable.grant(fn, 'dynamodb:GetItem', 'dynamodb:PutItem');
    const authorizer = new apigateway.RequestAuthorizer(this, 'BasicDigestAuthorizer', {
      handler: fn,
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    (authorizer.node.defaultChild as apigateway.CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');
    return authorizer;
  }

  /** Responses API Gateway gives by itself, shaped like the contract's. */
  private addGatewayResponses(realm: string) {
    // A Deny from the authorizer: 401 with the challenge it computed (one fresh nonce per response).
    this.api.addGatewayResponse('AccessDenied', {
      type: apigateway.ResponseType.ACCESS_DENIED,
      statusCode: '401',
      responseHeaders: { 'WWW-Authenticate': 'context.authorizer.challenge' },
      templates: { 'application/json': '' },
    });
    // Safety net if API Gateway ever rejects before the authorizer runs: a static challenge.
    this.api.addGatewayResponse('Unauthorized', {
      type: apigateway.ResponseType.UNAUTHORIZED,
      statusCode: '401',
      responseHeaders: { 'WWW-Authenticate': `'Basic realm="${realm}"'` },
      templates: { 'application/json': '' },
    });
    // An unknown path or method: 404 with no body, instead of 403 "Missing Authentication Token".
    this.api.addGatewayResponse('UnknownRoute', {
      type: apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN,
      statusCode: '404',
      templates: { 'application/json': '' },
    });
    this.api.addGatewayResponse('Default5xx', {
      type: apigateway.ResponseType.DEFAULT_5XX,
      statusCode: '500',
      responseHeaders: { 'Content-Type': "'application/json'" },
      templates: {
        'application/json':
          '{"timestamp":"$context.requestTime","status":500,"message":"An unexpected error occurred"}',
      },
    });
  }
}
