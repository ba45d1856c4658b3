import * as path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTION_TIMEOUT_SECONDS } from '../../shared/api/routes';
import { DEFAULTS, ENV, toEnvironment } from '../../shared/config';
import { BUNDLING, PROJECT_ROOT } from '../bundling';
import { acknowledge } from './acknowledge';
import { skipScanners, TRACING_OPTION } from './scanner-skips';

/** Log groups: CloudWatch Logs' own encryption at rest (Checkov CKV_AWS_158). */
export const LOG_GROUP_ENCRYPTION = {
  id: 'CKV_AWS_158',
  reason:
    'Encrypted at rest by CloudWatch Logs with its own key; the lines hold no credential, header, query or body (docs/security.md), so a customer managed key would add cost and a key policy to keep, no protection',
};

/** Memory of every function: where cost × duration is lowest (see docs/benchmarks.md). */
export const FUNCTION_MEMORY_MB = 512;

export interface RouteFunctionProps {
  /** Handler file relative to the project root, exporting `handler`. */
  entry: string;
  /** Files (relative to the project root) copied beside the bundle, for the handler to read. */
  assets?: readonly string[];
  environment: Record<string, string>;
  /** Active X-Ray tracing. */
  tracing: boolean;
  /**
   * Declare DYNAMODB_ENDPOINT and NONCE_SECRET (empty) too, because `sam local --env-vars` can only
   * set variables the template declares. For `sam local` templates only.
   */
  samLocal: boolean;
  /** The processor the function runs on (arm64 on Lambda; the machine's own under `sam local`). */
  architecture: FunctionArchitecture;
  /** Default FUNCTION_TIMEOUT_SECONDS. */
  timeoutSeconds?: number;
  /**
   * Why a function not invoked by API Gateway needs no reserved concurrency and no dead-letter
   * queue (Checkov CKV_AWS_115, CKV_AWS_116); default: the API routes' reasons.
   */
  invocation?: { concurrency: string; deadLetters: string };
}

export type FunctionArchitecture = 'arm64' | 'x86_64';

/** The processor of the machine running this code, as Lambda names it. */
export const machineArchitecture = (): FunctionArchitecture => (process.arch === 'arm64' ? 'arm64' : 'x86_64');

/** Bundling hooks that copy `assets` into the bundle's folder (local bundling runs them in a shell). */
const copyBeside = (assets: readonly string[]): nodejs.ICommandHooks => ({
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (inputDir: string, outputDir: string) =>
    assets.map((asset) => `cp "${path.join(inputDir, asset)}" "${outputDir}"`),
});

/**
 * A function with its own role: write access to its own log group only (rather than the AWS
 * managed AWSLambdaBasicExecutionRole, which allows any log group), plus what each caller grants.
 */
export class RouteFunction extends Construct {
  readonly function: nodejs.NodejsFunction;

  constructor(scope: Construct, id: string, props: RouteFunctionProps) {
    super(scope, id);
    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${this.node.path}`,
    });
    logGroup.grantWrite(role);
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: props.architecture === 'x86_64' ? lambda.Architecture.X86_64 : lambda.Architecture.ARM_64,
      memorySize: FUNCTION_MEMORY_MB,
      timeout: Duration.seconds(props.timeoutSeconds ?? FUNCTION_TIMEOUT_SECONDS),
      role,
      tracing: props.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      environment: {
        ...props.environment,
        ...toEnvironment({
          serviceName: DEFAULTS.serviceName,
          metricsNamespace: DEFAULTS.metricsNamespace,
          logLevel: 'INFO',
        }),
        // Declared empty so that `sam local --env-vars` may set them (it sets only declared variables).
        ...(props.samLocal && {
          [ENV.dynamodbEndpoint]: '',
          [ENV.nonceSecret]: '',
          ...toEnvironment({ metricsDisabled: 'false' }),
        }),
      },
      bundling: props.assets?.length ? { ...BUNDLING, commandHooks: copyBeside(props.assets) } : BUNDLING,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      logGroup,
    });
    skipScanners(this.function, [
      {
        id: 'CKV_AWS_115',
        reason:
          props.invocation?.concurrency ??
          'No reserved concurrency: it would be taken from the account pool and cap each route on its own; the stage throttle bounds the load, and throttles alarm per function (docs/operations.md)',
      },
      {
        id: 'CKV_AWS_116',
        reason:
          props.invocation?.deadLetters ??
          'Invoked synchronously by API Gateway only; a dead-letter queue receives failed asynchronous invocations, which never happen',
      },
      {
        id: 'CKV_AWS_117',
        reason:
          'A public API whose only backend is DynamoDB, reached over its public endpoint with IAM: a VPC would add NAT or endpoints and start-up time with no private resource to reach',
      },
      {
        id: 'CKV_AWS_173',
        reason:
          'The environment holds no secret (table names and options; the nonce key lives in the auth table); Lambda encrypts it at rest with an AWS owned key',
      },
      {
        id: 'WS1004',
        reason:
          'The function logs to its own log group (LoggingConfig.LogGroup), made beside it with one month of retention; the rule looks only for a group named /aws/lambda/<function name>',
      },
      ...(props.tracing ? [] : [{ id: 'WS1000', reason: TRACING_OPTION }]),
    ]);
    skipScanners(logGroup, [LOG_GROUP_ENCRYPTION]);
    if (props.tracing) {
      acknowledge(
        role,
        'AwsSolutions-IAM5[Resource::*]',
        'X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level permissions; CDK adds them only with the tracing option.',
      );
    }
  }
}
