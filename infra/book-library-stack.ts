import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct, IConstruct } from 'constructs';
import { AUTHORIZER, FUNCTION_TIMEOUT_SECONDS, ROUTES, type Route, requiresAuth } from '../shared/api/routes';
import type { DigestAlgorithm } from '../shared/auth/digest';
import { AUTH_TABLE, BOOKS_TABLE, type KeyAttribute, type TableDefinition } from '../shared/store/tables';
import { addAlarms } from './alarms';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface BookLibraryStackProps extends StackProps {
  /** Stage name of the API; also part of resource names. */
  stage: string;
  /** Keep tables (and their data) when the stack is deleted; on for production. */
  retainData: boolean;
  /** Authentication realm (user records are per realm). */
  realm: string;
  /** The Digest algorithm the challenge offers (default MD5, which every tested client speaks). */
  digestAlgorithm?: DigestAlgorithm;
  /** The two GET routes need no credentials. */
  publicReads: boolean;
  /** Steady-state requests per second and burst for the whole stage. */
  throttling: { rateLimit: number; burstLimit: number };
  /** Active X-Ray tracing for the stage and every function (default off). */
  tracing?: boolean;
  /** A regional WAFv2 web ACL to associate with the stage. */
  webAclArn?: string;
  /** An SNS topic the alarms notify. */
  alarmTopicArn?: string;
  /**
   * Declare DYNAMODB_ENDPOINT and NONCE_SECRET (empty) on every function, because `sam local
   * --env-vars` can only set variables the template declares. For `sam local` templates only.
   */
  samLocal?: boolean;
}

/**
 * esbuild settings every function shares (`npm run bench` builds with exactly these). The SDK is
 * bundled (not the runtime's copy) and read through its `module` entry points, so unused parts are
 * dropped; the banner gives ESM bundles the `require` the AWS SDK expects. The source map is a file
 * beside the bundle that nothing references and `--enable-source-maps` is not set, so it costs
 * nothing at run time; map a minified stack trace with it offline (it is in cdk.out). The alias swaps
 * the SDK's default credential chain for its environment link, the only one that runs on Lambda
 * (see shared/aws/lambda-credential-provider.ts).
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
  esbuildArgs: {
    '--alias': `@aws-sdk/credential-provider-node=${path.join(PROJECT_ROOT, 'shared/aws/lambda-credential-provider.ts')}`,
  },
};

/**
 * What the book store sends, as IAM actions: Get and Query for reads; Put, Update and Delete
 * (inside TransactWriteItems too, which IAM authorises per item action) for writes. A test checks
 * this list against the commands in shared/store/dynamodb-book-store.ts.
 */
export const BOOKS_TABLE_ACTIONS = {
  read: ['dynamodb:GetItem', 'dynamodb:Query'],
  write: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
} as const;

export const METRICS_NAMESPACE = 'BookLibrary';

/** Memory of every function: where cost × duration is lowest (see README, Benchmarks). */
export const FUNCTION_MEMORY_MB = 512;

const attributeType = (key: KeyAttribute) =>
  key.type === 'S' ? dynamodb.AttributeType.STRING : dynamodb.AttributeType.NUMBER;

/** A cdk-nag finding accepted on purpose, with the reason next to the construct it concerns. */
const acknowledge = (scope: IConstruct, id: string, reason: string) =>
  Validations.of(scope).acknowledge({ id, reason });

export class BookLibraryStack extends Stack {
  readonly api: apigateway.RestApi;
  readonly booksTable: dynamodb.Table;
  readonly authTable: dynamodb.Table;
  readonly functions: Record<string, nodejs.NodejsFunction> = {};

  private readonly props: BookLibraryStackProps;
  private readonly removalPolicy: RemovalPolicy;

  constructor(scope: Construct, id: string, props: BookLibraryStackProps) {
    super(scope, id, props);
    this.props = props;
    this.removalPolicy = props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.booksTable = this.table('BooksTable', BOOKS_TABLE, props.retainData);
    this.authTable = this.table('AuthTable', AUTH_TABLE, props.retainData);

    this.api = this.restApi();
    this.addGatewayResponses(props.realm);
    const authorizer = this.authorizer(props.realm, props.digestAlgorithm ?? 'MD5');
    // Path parameters are declared required and checked by API Gateway; bodies are validated by
    // the handlers, whose 400 bodies the contract fixes (a gateway model would answer its own body).
    const validator = new apigateway.RequestValidator(this, 'ParameterValidator', {
      restApi: this.api,
      validateRequestParameters: true,
      validateRequestBody: false,
    });
    acknowledge(
      this.api,
      'AwsSolutions-APIG2',
      'Parameters are validated by API Gateway; bodies by the handlers with the same valibot schemas the OpenAPI document shows, because the contract fixes the 400 body (timestamp, status, errors per field), which a gateway model validation cannot produce.',
    );

    for (const route of ROUTES) {
      const fn = this.routeFunction(route.name, route.entry, this.routeEnvironment(route));
      this.grantBooksTable(fn, route);
      const guarded = requiresAuth(route, props.publicReads);
      const method = this.api.root
        .resourceForPath(route.path)
        .addMethod(route.method, new apigateway.LambdaIntegration(fn), {
          requestValidator: validator,
          requestParameters: Object.fromEntries(
            [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [`method.request.path.${name}`, true]),
          ),
          ...(guarded ? { authorizer, authorizationType: apigateway.AuthorizationType.CUSTOM } : {}),
        });
      if (!guarded) {
        acknowledge(
          method,
          'AwsSolutions-APIG4',
          route.access === 'none'
            ? 'Public on purpose: the OpenAPI description carries no data and clients need it before they have credentials.'
            : 'Public on purpose: the publicReads deployment option opens the two read routes; writes stay guarded.',
        );
      }
      acknowledge(
        method,
        'AwsSolutions-COG4',
        'The contract requires HTTP Basic and Digest authentication, which a Cognito user pool authorizer cannot do; the Lambda REQUEST authorizer implements them.',
      );
    }

    addAlarms(this, {
      api: this.api,
      functions: Object.values(this.functions),
      authorizer: this.functions[AUTHORIZER.name] as lambda.IFunction,
      ...(props.alarmTopicArn && { topicArn: props.alarmTopicArn }),
    });

    new CfnOutput(this, 'ApiUrl', { value: `${this.api.url.replace(/\/$/, '')}/api/books` });
    new CfnOutput(this, 'OpenApiUrl', { value: `${this.api.url.replace(/\/$/, '')}/api/openapi.json` });
    new CfnOutput(this, 'BooksTableName', { value: this.booksTable.tableName });
    new CfnOutput(this, 'AuthTableName', { value: this.authTable.tableName });
  }

  private table(id: string, definition: TableDefinition, protect: boolean) {
    const table = new dynamodb.Table(this, id, {
      partitionKey: { name: definition.partitionKey.name, type: attributeType(definition.partitionKey) },
      ...(definition.sortKey && {
        sortKey: { name: definition.sortKey.name, type: attributeType(definition.sortKey) },
      }),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: protect,
      removalPolicy: this.removalPolicy,
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

  /**
   * The stage: throttled, JSON access logs, execution logs at ERROR level only. Data tracing stays
   * off: it would write full requests, Authorization header included, to CloudWatch.
   */
  private restApi() {
    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: this.removalPolicy,
    });
    const F = apigateway.AccessLogField;
    const api = new apigateway.RestApi(this, 'Api', {
      restApiName: `book-library-${this.props.stage}`,
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: this.props.stage,
        throttlingRateLimit: this.props.throttling.rateLimit,
        throttlingBurstLimit: this.props.throttling.burstLimit,
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: this.props.tracing ?? false,
        accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
        // Context variables only: no header, query or body value can reach the access log.
        accessLogFormat: apigateway.AccessLogFormat.custom(
          JSON.stringify({
            requestId: F.contextRequestId(),
            extendedRequestId: F.contextExtendedRequestId(),
            requestTime: F.contextRequestTime(),
            ip: F.contextIdentitySourceIp(),
            method: F.contextHttpMethod(),
            resource: F.contextResourcePath(),
            path: F.contextPath(),
            status: F.contextStatus(),
            protocol: F.contextProtocol(),
            responseLength: F.contextResponseLength(),
            latencyMs: F.contextResponseLatency(),
            integrationLatencyMs: F.contextIntegrationLatency(),
            user: F.contextAuthorizerPrincipalId(),
            authorizerStatus: F.contextAuthorizerIntegrationStatus(),
            authorizerLatencyMs: F.contextAuthorizerIntegrationLatency(),
            authorizerError: F.contextAuthorizerError(),
            integrationError: F.contextIntegrationErrorMessage(),
            errorType: F.contextErrorResponseType(),
          }),
        ),
      },
    });
    acknowledge(
      api.node.findChild('CloudWatchRole'),
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      "API Gateway's account-wide logging role, assumable only by apigateway.amazonaws.com; the AWS managed policy is the one AWS documents for it and follows log-group changes AWS makes.",
    );
    if (this.props.webAclArn) {
      new wafv2.CfnWebACLAssociation(this, 'WebAcl', {
        resourceArn: api.deploymentStage.stageArn,
        webAclArn: this.props.webAclArn,
      });
    } else {
      acknowledge(
        api.deploymentStage,
        'AwsSolutions-APIG3',
        'WAF is an option (-c webAclArn=<regional web ACL ARN>): a web ACL is account-specific and billed per rule; the stage is throttled and every route but the OpenAPI document needs credentials.',
      );
    }
    return api;
  }

  private routeEnvironment(route: Route): Record<string, string> {
    if (route.access === 'none') return { PUBLIC_READS: String(this.props.publicReads) };
    return { BOOKS_TABLE_NAME: this.booksTable.tableName };
  }

  /** Only the item actions the store uses, on the table and its named indexes (no `index/*`). */
  private grantBooksTable(fn: lambda.IFunction, route: Route) {
    if (route.access === 'none') return;
    const resources = [
      this.booksTable.tableArn,
      ...BOOKS_TABLE.indexes.map((index) => `${this.booksTable.tableArn}/index/${index.indexName}`),
    ];
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...BOOKS_TABLE_ACTIONS[route.access]], resources }));
  }

  /**
   * A function with its own role: write access to its own log group only (rather than the AWS
   * managed AWSLambdaBasicExecutionRole, which allows any log group), plus what each caller grants.
   */
  protected routeFunction(id: string, entry: string, environment: Record<string, string>) {
    const logGroup = new logs.LogGroup(this, `${id}Logs`, {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new iam.Role(this, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${id} function`,
    });
    logGroup.grantWrite(role);
    const fn = new nodejs.NodejsFunction(this, id, {
      entry: path.join(PROJECT_ROOT, entry),
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: FUNCTION_MEMORY_MB,
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      role,
      tracing: this.props.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      environment: {
        ...environment,
        POWERTOOLS_SERVICE_NAME: 'book-library',
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...(this.props.samLocal && { DYNAMODB_ENDPOINT: '', NONCE_SECRET: '', POWERTOOLS_METRICS_DISABLED: 'false' }),
      },
      bundling: BUNDLING,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      logGroup,
    });
    if (this.props.tracing) {
      acknowledge(
        role,
        'AwsSolutions-IAM5[Resource::*]',
        'X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level permissions; CDK adds them only with the tracing option.',
      );
    }
    this.functions[id] = fn;
    return fn;
  }

  /**
   * The REQUEST authorizer: no result cache (every nonce is single-use) and no identity source, or
   * API Gateway would answer a request without Authorization itself, with no challenge.
   */
  private authorizer(realm: string, digestAlgorithm: DigestAlgorithm) {
    const fn = this.routeFunction(AUTHORIZER.name, AUTHORIZER.entry, {
      AUTH_TABLE_NAME: this.authTable.tableName,
      AUTH_REALM: realm,
      DIGEST_ALGORITHM: digestAlgorithm,
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
