import { RemovalPolicy } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { corsOriginHeaders } from '../../shared/http/cors';
import {
  AUTHENTICATION_RETRY_AFTER_SECONDS,
  AUTHENTICATION_UNAVAILABLE_MESSAGE,
  GATEWAY_BODY_TOO_LARGE_MESSAGE,
  GATEWAY_TIMEOUT_MESSAGE,
  INTERNAL_ERROR_MESSAGE,
} from '../../shared/http/responses';
import { GATEWAY_HEADERS } from '../../shared/http/standard-headers';
import { acknowledge } from './acknowledge';
import { staticHeaderValues } from './gateway-methods';
import { LOG_GROUP_ENCRYPTION } from './route-function';
import { skipScanners, TRACING_OPTION } from './scanner-skips';

export interface BookRestApiProps {
  stage: string;
  realm: string;
  /** Steady-state requests per second and burst for the whole stage. */
  throttling: { rateLimit: number; burstLimit: number };
  tracing: boolean;
  /** A regional WAFv2 web ACL to associate with the stage. */
  webAclArn?: string;
  /** What happens to the access-log group when the stack is deleted. */
  removalPolicy: RemovalPolicy;
  /** Browser origins CORS lets in (none: no CORS fields). */
  corsAllowedOrigins: readonly string[];
}

/**
 * The REST API and its stage: throttled, JSON access logs, execution logs at ERROR level only,
 * and the responses API Gateway gives by itself shaped like the contract's. Data tracing stays off:
 * it would write full requests, Authorization header included, to CloudWatch.
 */
export class BookRestApi extends Construct {
  readonly api: apigateway.RestApi;
  /** Path parameters are declared required and checked by API Gateway. */
  readonly parameterValidator: apigateway.RequestValidator;
  /** Cache-Control, nosniff and the CORS fields every gateway response carries (set before any is added). */
  private standardHeaders: Record<string, string> = {};

  constructor(scope: Construct, id: string, props: BookRestApiProps) {
    super(scope, id);
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: props.removalPolicy,
    });
    const F = apigateway.AccessLogField;
    this.api = new apigateway.RestApi(this, 'Api', {
      restApiName: `book-library-${props.stage}`,
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      // Every request body is binary to the gateway, so it reaches the function byte for byte in
      // base64 (isBase64Encoded), whatever its Content-Type or bytes: the handlers decode it and
      // refuse what is not UTF-8 JSON, as locally. Responses are unaffected: the functions never
      // set isBase64Encoded, and a streamed response passes through as it is.
      binaryMediaTypes: ['*/*'],
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: props.stage,
        throttlingRateLimit: props.throttling.rateLimit,
        throttlingBurstLimit: props.throttling.burstLimit,
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: props.tracing,
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
    skipScanners(accessLogs, [LOG_GROUP_ENCRYPTION]);
    skipScanners(this.api.deploymentStage, [
      {
        id: 'CKV_AWS_120',
        reason:
          'No stage cache: every answer is for the client that asked (Cache-Control private or no-store, docs/contract.md#caching); a stage cache would serve one user the answer meant for another',
      },
      ...(props.tracing
        ? []
        : [
            { id: 'CKV_AWS_73', reason: TRACING_OPTION },
            { id: 'WS2002', reason: TRACING_OPTION },
          ]),
    ]);
    acknowledge(
      this.api.node.findChild('CloudWatchRole'),
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      "API Gateway's account-wide logging role, assumable only by apigateway.amazonaws.com; the AWS managed policy is the one AWS documents for it and follows log-group changes AWS makes.",
    );
    if (props.webAclArn) {
      new wafv2.CfnWebACLAssociation(this, 'WebAcl', {
        resourceArn: this.api.deploymentStage.stageArn,
        webAclArn: props.webAclArn,
      });
    } else {
      acknowledge(
        this.api.deploymentStage,
        'AwsSolutions-APIG3',
        'WAF is an option (-c webAclArn=<regional web ACL ARN>): a web ACL is account-specific and billed per rule; the stage is throttled and every route but the OpenAPI document needs credentials.',
      );
    }

    // Bodies are validated by the handlers, whose 400 bodies the contract fixes (a gateway model
    // would answer its own body).
    this.parameterValidator = new apigateway.RequestValidator(this, 'ParameterValidator', {
      restApi: this.api,
      validateRequestParameters: true,
      validateRequestBody: false,
    });
    acknowledge(
      this.api,
      'AwsSolutions-APIG2',
      'Parameters are validated by API Gateway; bodies by the handlers with the same valibot schemas the OpenAPI document shows, because the contract fixes the 400 body (timestamp, status, errors per field), which a gateway model validation cannot produce.',
    );
    this.addGatewayResponses(props.realm, props.corsAllowedOrigins);
  }

  /**
   * The standard and CORS fields of API Gateway's own answers. A gateway response maps static values
   * or request context, never a choice among origins: with one listed origin it names it; with
   * several, only the 401 of a Deny does (the authorizer puts a listed origin in its context), and
   * the others carry `Vary: Origin` alone (docs/contract.md#cors).
   */
  private static gatewayHeaders(corsOrigins: readonly string[], deny = false): Record<string, string> {
    const headers = staticHeaderValues({ ...GATEWAY_HEADERS, ...(corsOrigins.length > 0 && { Vary: 'Origin' }) });
    if (corsOrigins.length === 1)
      return { ...headers, ...staticHeaderValues(corsOriginHeaders(corsOrigins[0] as string)) };
    if (corsOrigins.length > 1 && deny) {
      const { 'Access-Control-Allow-Origin': _, ...grant } = corsOriginHeaders('');
      return {
        ...headers,
        ...staticHeaderValues(grant),
        'Access-Control-Allow-Origin': 'context.authorizer.corsOrigin',
      };
    }
    return headers;
  }

  /**
   * Responses API Gateway gives by itself, shaped like the contract's as far as a gateway response
   * can be (docs/contract.md lists where it cannot). Their templates are plain variable
   * substitution, no VTL: no ISO 8601 date can be computed (`$context.requestTime` is in log format,
   * `$context.requestTimeEpoch` in milliseconds), so generated bodies carry no `timestamp`.
   */
  private addGatewayResponses(realm: string, corsOrigins: readonly string[]) {
    this.standardHeaders = BookRestApi.gatewayHeaders(corsOrigins);
    // A Deny from the authorizer: 401 with the challenge it computed (one fresh nonce per response).
    this.gatewayResponse('AccessDenied', apigateway.ResponseType.ACCESS_DENIED, {
      statusCode: '401',
      headers: { ...BookRestApi.gatewayHeaders(corsOrigins, true), 'WWW-Authenticate': 'context.authorizer.challenge' },
    });
    // The authorizer threw (its account store throttled or failed): 503 and a time to try again, not 500.
    // An authorizer that timed out, crashed or returned a malformed policy is reported as
    // AUTHORIZER_CONFIGURATION_ERROR instead: to the client the same passing unavailability.
    for (const [id, type] of [
      ['AuthorizerFailure', apigateway.ResponseType.AUTHORIZER_FAILURE],
      ['AuthorizerConfigurationError', apigateway.ResponseType.AUTHORIZER_CONFIGURATION_ERROR],
    ] as const) {
      this.gatewayResponse(id, type, {
        statusCode: '503',
        headers: { 'Retry-After': `'${AUTHENTICATION_RETRY_AFTER_SECONDS}'` },
        body: { status: 503, message: AUTHENTICATION_UNAVAILABLE_MESSAGE },
      });
    }
    // Safety net if API Gateway ever rejects before the authorizer runs: a static challenge.
    this.gatewayResponse('Unauthorized', apigateway.ResponseType.UNAUTHORIZED, {
      statusCode: '401',
      headers: { 'WWW-Authenticate': `'Basic realm="${realm}"'` },
    });
    // An unknown path or method: 404 with no body, instead of 403 "Missing Authentication Token".
    this.gatewayResponse('UnknownRoute', apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN, { statusCode: '404' });
    // A resource API Gateway cannot find after the authorizer allowed the call: the same 404.
    this.gatewayResponse('ResourceNotFound', apigateway.ResponseType.RESOURCE_NOT_FOUND, { statusCode: '404' });
    // A body past API Gateway's 10 MB, or past Lambda's 6 MB invoke payload once base64-encoded
    // (about 4.4 MB): the contract's 413 shape and the handlers' message.
    this.gatewayResponse('RequestTooLarge', apigateway.ResponseType.REQUEST_TOO_LARGE, {
      statusCode: '413',
      body: { status: 413, message: GATEWAY_BODY_TOO_LARGE_MESSAGE },
    });
    // The function outlived the integration timeout: 504 stays 504.
    this.gatewayResponse('IntegrationTimeout', apigateway.ResponseType.INTEGRATION_TIMEOUT, {
      statusCode: '504',
      body: { status: 504, message: GATEWAY_TIMEOUT_MESSAGE },
    });
    // Every other 4xx and 5xx API Gateway answers itself (a 429 of the stage throttle, a 502 for a
    // function that crashed): no statusCode, so the status API Gateway chose is kept, which the
    // template cannot name; hence no `status` in these bodies.
    this.gatewayResponse('Default4xx', apigateway.ResponseType.DEFAULT_4XX, {
      body: { message: '$context.error.messageString' },
    });
    this.gatewayResponse('Default5xx', apigateway.ResponseType.DEFAULT_5XX, {
      body: { message: INTERNAL_ERROR_MESSAGE },
    });
  }

  /**
   * One gateway response. Every one carries GATEWAY_RESPONSE_HEADERS (headers every answer of the
   * API carries belong there); `headers` are mapping expressions (a quoted literal or a context
   * variable). A body is JSON, or none at all (401, 404). `$context.error.messageString` is
   * written unquoted: the gateway substitutes it already quoted as a JSON string.
   */
  private gatewayResponse(
    id: string,
    type: apigateway.ResponseType,
    { statusCode, headers = {}, body }: { statusCode?: string; headers?: Record<string, string>; body?: object },
  ) {
    const template =
      body === undefined
        ? ''
        : JSON.stringify(body).replace('"$context.error.messageString"', '$context.error.messageString');
    this.api.addGatewayResponse(id, {
      type,
      ...(statusCode !== undefined && { statusCode }),
      responseHeaders: { ...GATEWAY_RESPONSE_HEADERS, ...this.standardHeaders, ...headers },
      templates: { 'application/json': template },
    });
  }
}

/** The headers of every response API Gateway writes itself, as mapping expressions (quoted literals). */
const GATEWAY_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': "'application/json; charset=utf-8'",
};
