import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import {
  FUNCTION_TIMEOUT_SECONDS,
  functionTimeoutMs,
  handlerOf,
  ROUTES,
  type Route,
  requiresAuth,
  UNROUTED_METHODS,
} from '../shared/api/routes';
import { type BasicChallengePlacement, DEFAULT_BASIC_CHALLENGE } from '../shared/auth/challenge';
import { DEFAULT_DIGEST_OFFER, type DigestAlgorithm } from '../shared/auth/digest';
import { DEFAULT_LOCKOUT_POLICY, type LockoutPolicy } from '../shared/auth/lockout';
import { DEFAULTS, toEnvironment } from '../shared/config';
import { acknowledge } from './constructs/acknowledge';
import { ServiceAlarms } from './constructs/alarms';
import { BasicDigestAuthorizer } from './constructs/authorizer';
import { ChangeEvents } from './constructs/change-events';
import { addUnroutedMethods } from './constructs/gateway-methods';
import { BookRestApi } from './constructs/rest-api';
import { type FunctionArchitecture, RouteFunction } from './constructs/route-function';
import { publicMethodSkip, skipScanners } from './constructs/scanner-skips';
import { nameStageInPermissions } from './constructs/stage-permissions';
import { ServiceTables } from './constructs/tables';

export interface BookLibraryStackProps extends StackProps {
  /** Stage name of the API; also part of resource names. */
  stage: string;
  /** Keep tables (and their data) when the stack is deleted; on for production. */
  retainData: boolean;
  /** Authentication realm (user records are per realm). */
  realm: string;
  /** The Digest algorithms the challenge offers, in order (default MD5 alone). */
  digestAlgorithms?: readonly DigestAlgorithm[];
  /** The failure limit and lockout schedule (default: 100 an hour; 60 s after 5 failures, doubling to 15 min). */
  lockout?: LockoutPolicy;
  /** Where the contract's Basic challenge stands beside the Digest ones (default after them). */
  basicChallenge?: BasicChallengePlacement;
  /** The two GET routes need no credentials. */
  publicReads: boolean;
  /** Browser origins CORS lets in (`https://app.example.com`); default none: no CORS at all. */
  corsAllowedOrigins?: readonly string[];
  /** The URL a front (CDN, proxy) serves the API's root at: `Location` and the links are written on it. */
  publicBaseUrl?: string;
  /** The secret a declared CloudFront front sends in X-Origin-Secret: its viewer address is then counted. */
  originSecret?: string;
  /** PUT, PATCH and DELETE without If-Match get 428 (default off: the contract's clients send none). */
  requireIfMatch?: boolean;
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
   * --env-vars` can only set variables the template declares; and build a route's buffered variant
   * (the route table's `bufferedEntry`) where it streams, because `sam local start-api` cannot relay
   * a stream. For `sam local` templates only.
   */
  samLocal?: boolean;
  /**
   * Build the list's buffered variant (the route table's `bufferedEntry`, at most 6 MB per answer)
   * behind an ordinary proxy integration instead of the streamed list: for a region where Lambda
   * response streaming is not available (docs/operations.md). `samLocal` implies it.
   */
  bufferedList?: boolean;
  /** The functions' processor (default arm64, as the cost figures assume). */
  architecture?: FunctionArchitecture;
  /**
   * At most this many books in one unpaged list (more is 422, pointing to pages), decided before the
   * first byte. The default (DEFAULT_LIST_MAX_BOOKS) keeps a list of the largest books the schema allows below
   * Lambda's 200 MB cap on a streamed response; raise it only for catalogues of small books.
   */
  listMaxBooks?: number;
}

/**
 * The deployment's composition root: it only wires the constructs, one function and API method per
 * entry of the route table, guarded by the authorizer where the route requires credentials.
 */
export class BookLibraryStack extends Stack {
  readonly api: apigateway.RestApi;
  readonly tables: ServiceTables;
  readonly functions: Record<string, lambda.IFunction> = {};
  /** The books table's change events: stream, publishing function, bus, archive, dead letters. */
  readonly changeEvents: ChangeEvents;

  constructor(scope: Construct, id: string, props: BookLibraryStackProps) {
    super(scope, id, props);
    const tracing = props.tracing ?? false;
    const samLocal = props.samLocal ?? false;
    const architecture = props.architecture ?? 'arm64';

    this.tables = new ServiceTables(this, 'Tables', { retainData: props.retainData });
    const restApi = new BookRestApi(this, 'RestApi', {
      stage: props.stage,
      realm: props.realm,
      throttling: props.throttling,
      tracing,
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      corsAllowedOrigins: props.corsAllowedOrigins ?? [],
      ...(props.webAclArn && { webAclArn: props.webAclArn }),
    });
    this.api = restApi.api;
    const auth = new BasicDigestAuthorizer(this, 'Authorizer', {
      authTable: this.tables.auth,
      realm: props.realm,
      digestAlgorithms: props.digestAlgorithms ?? DEFAULT_DIGEST_OFFER,
      lockout: props.lockout ?? DEFAULT_LOCKOUT_POLICY,
      basicChallenge: props.basicChallenge ?? DEFAULT_BASIC_CHALLENGE,
      corsAllowedOrigins: props.corsAllowedOrigins ?? [],
      ...(props.publicBaseUrl && { publicBaseUrl: props.publicBaseUrl }),
      ...(props.originSecret && { originSecret: props.originSecret }),
      tracing,
      samLocal,
      architecture,
    });
    this.functions.Authorizer = auth.function;

    for (const route of ROUTES) {
      // `sam local start-api` cannot relay a streamed response: its template builds the buffered variant.
      const { entry, streaming } = handlerOf(route, samLocal || (props.bufferedList ?? false));
      const fn = new RouteFunction(this, route.name, {
        entry,
        ...('assets' in route && { assets: route.assets }),
        environment: this.routeEnvironment(route, props),
        tracing,
        samLocal,
        architecture,
        // A buffered integration waits 29 s at most: a longer function would run on, billed, after the gateway's 504.
        timeoutSeconds: streaming ? functionTimeoutMs(route) / 1_000 : FUNCTION_TIMEOUT_SECONDS,
      }).function;
      if (route.access !== 'none') this.tables.grantBooks(fn, route.access);
      this.functions[route.name] = fn;
      const authorizer = requiresAuth(route, props.publicReads) && auth.authorizer;
      const integration = this.integrationOf(route, fn, streaming);
      this.addMethod(route, route.method, integration, restApi.parameterValidator, authorizer);
      // HEAD runs the GET route's function, which sees HEAD (RFC 9110 §9.3.2); API Gateway drops the body.
      if (route.method === 'GET') this.addMethod(route, 'HEAD', integration, restApi.parameterValidator, authorizer);
    }
    // OPTIONS and the 405s: one public function for every resource (docs/contract.md#routes).
    const unroutedFunction = new RouteFunction(this, UNROUTED_METHODS.name, {
      entry: UNROUTED_METHODS.entry,
      environment: toEnvironment(
        props.corsAllowedOrigins?.length ? { corsAllowedOrigins: props.corsAllowedOrigins } : {},
      ),
      tracing,
      samLocal,
      architecture,
    }).function;
    this.functions[UNROUTED_METHODS.name] = unroutedFunction;
    addUnroutedMethods(this.api, unroutedFunction, samLocal);
    nameStageInPermissions(this, this.api, props.stage);

    this.changeEvents = new ChangeEvents(this, 'ChangeEvents', {
      books: this.tables.books,
      stage: props.stage,
      tracing,
      samLocal,
      architecture,
    });

    new ServiceAlarms(this, 'Alarms', {
      api: this.api,
      functions: this.functions,
      authorizer: auth.function,
      changeEvents: { function: this.changeEvents.function, deadLetters: this.changeEvents.deadLetters },
      ...(props.alarmTopicArn && { topicArn: props.alarmTopicArn }),
    });

    const baseUrl = this.api.url.replace(/\/$/, '');
    new CfnOutput(this, 'ApiUrl', { value: `${baseUrl}/api/books` });
    new CfnOutput(this, 'OpenApiUrl', { value: `${baseUrl}/api/openapi.json` });
    new CfnOutput(this, 'BooksTableName', { value: this.tables.books.tableName });
    new CfnOutput(this, 'AuthTableName', { value: this.tables.auth.tableName });
    new CfnOutput(this, 'EventBusName', { value: this.changeEvents.bus.eventBusName });
    new CfnOutput(this, 'EventBusArn', { value: this.changeEvents.bus.eventBusArn });
    new CfnOutput(this, 'EventArchiveArn', { value: this.changeEvents.archive.archiveArn });
    new CfnOutput(this, 'ChangeEventDeadLettersUrl', { value: this.changeEvents.deadLetters.queueUrl });
  }

  private routeEnvironment(route: Route, props: BookLibraryStackProps): Record<string, string> {
    const cors = props.corsAllowedOrigins?.length ? { corsAllowedOrigins: props.corsAllowedOrigins } : {};
    const links = { publicBaseUrl: props.publicBaseUrl };
    if (route.access === 'none') return toEnvironment({ publicReads: props.publicReads, ...cors, ...links });
    return toEnvironment({
      ...cors,
      ...links,
      booksTableName: this.tables.books.tableName,
      // A read's function refuses a request without a user unless the deployment makes reads public.
      ...(route.method === 'GET' && { publicReads: props.publicReads }),
      ...(route.name === 'ListBooks' && { listMaxBooks: props.listMaxBooks ?? DEFAULTS.listMaxBooks }),
      ...(route.access !== 'read' && route.access !== 'list' && { requireIfMatch: props.requireIfMatch ?? false }),
    });
  }

  /**
   * A streaming route's integration: the STREAM transfer mode (CDK then invokes the function
   * through the response-streaming URI), with the gateway waiting as long as the function may run.
   */
  private integrationOf(route: Route, fn: lambda.IFunction, streaming: boolean): apigateway.LambdaIntegration {
    if (!streaming) return new apigateway.LambdaIntegration(fn);
    return new apigateway.LambdaIntegration(fn, {
      responseTransferMode: apigateway.ResponseTransferMode.STREAM,
      timeout: Duration.millis(functionTimeoutMs(route)),
    });
  }

  private addMethod(
    route: Route,
    httpMethod: string,
    integration: apigateway.LambdaIntegration,
    validator: apigateway.RequestValidator,
    authorizer: apigateway.IAuthorizer | false,
  ) {
    const method = this.api.root.resourceForPath(route.path).addMethod(httpMethod, integration, {
      requestValidator: validator,
      requestParameters: Object.fromEntries(
        [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [`method.request.path.${name}`, true]),
      ),
      ...(authorizer ? { authorizer, authorizationType: apigateway.AuthorizationType.CUSTOM } : {}),
    });
    if (!authorizer) {
      const reason =
        route.access === 'none'
          ? 'Public on purpose: the OpenAPI description, its browsable reference and the pointers to them at / and /api carry no data, and clients need them before they have credentials.'
          : 'Public on purpose: the publicReads deployment option opens the two read routes; writes stay guarded.';
      acknowledge(method, 'AwsSolutions-APIG4', reason);
      skipScanners(method, [publicMethodSkip(reason)]);
    }
    acknowledge(
      method,
      'AwsSolutions-COG4',
      'The contract requires HTTP Basic and Digest authentication, which a Cognito user pool authorizer cannot do; the Lambda REQUEST authorizer implements them.',
    );
  }
}
