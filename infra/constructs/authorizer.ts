import { Duration } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { AUTHORIZER } from '../../shared/api/routes';
import type { BasicChallengePlacement } from '../../shared/auth/challenge';
import type { DigestAlgorithm } from '../../shared/auth/digest';
import type { LockoutPolicy } from '../../shared/auth/lockout';
import { originSecretDigest } from '../../shared/auth/viewer-address';
import { DEFAULTS, toEnvironment } from '../../shared/config';
import { AUTHORIZER_AUTH_TABLE_ACCESS } from '../../shared/store/table-access';
import { RouteFunction, type RouteFunctionProps } from './route-function';

export interface BasicDigestAuthorizerProps extends Pick<RouteFunctionProps, 'tracing' | 'samLocal' | 'architecture'> {
  authTable: dynamodb.ITable;
  realm: string;
  digestAlgorithms: readonly DigestAlgorithm[];
  lockout: LockoutPolicy;
  basicChallenge: BasicChallengePlacement;
  /** Browser origins CORS lets in: a Deny names a listed request's origin for the 401's CORS field. */
  corsAllowedOrigins: readonly string[];
  /** Where a front serves the API's root: Digest's `uri` names the front's path, not the gateway's. */
  publicBaseUrl?: string;
  /** The secret a declared front sends in X-Origin-Secret (docs/security.md): then the viewer's address is counted. Only its SHA-256 reaches the function. */
  originSecret?: string;
}

/**
 * The REQUEST authorizer: no result cache (every nonce is single-use) and no identity source, or
 * API Gateway would answer a request without Authorization itself, with no challenge.
 */
export class BasicDigestAuthorizer extends Construct {
  readonly function: RouteFunction['function'];
  readonly authorizer: apigateway.RequestAuthorizer;

  constructor(scope: Construct, id: string, props: BasicDigestAuthorizerProps) {
    super(scope, id);
    this.function = new RouteFunction(this, 'Handler', {
      entry: AUTHORIZER.entry,
      tracing: props.tracing,
      samLocal: props.samLocal,
      architecture: props.architecture,
      environment: toEnvironment({
        authTableName: props.authTable.tableName,
        realm: props.realm,
        digestAlgorithms: props.digestAlgorithms,
        basicChallenge: props.basicChallenge,
        nonceLifetimeSeconds: DEFAULTS.nonceLifetimeSeconds,
        failureLimit: props.lockout.failureLimit,
        lockoutAfter: props.lockout.lockoutAfter,
        lockoutSeconds: props.lockout.lockoutSeconds,
        lockoutMaxSeconds: props.lockout.lockoutMaxSeconds,
        ...(props.corsAllowedOrigins.length > 0 && { corsAllowedOrigins: props.corsAllowedOrigins }),
        publicBaseUrl: props.publicBaseUrl,
        originSecretSha256: props.originSecret && originSecretDigest(props.originSecret),
      }),
    }).function;
    props.authTable.grant(this.function, ...AUTHORIZER_AUTH_TABLE_ACCESS.table);
    this.authorizer = new apigateway.RequestAuthorizer(this, 'RequestAuthorizer', {
      handler: this.function,
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    (this.authorizer.node.defaultChild as apigateway.CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');
  }
}
