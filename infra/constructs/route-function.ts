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
    if (props.tracing) {
      acknowledge(
        role,
        'AwsSolutions-IAM5[Resource::*]',
        'X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level permissions; CDK adds them only with the tracing option.',
      );
    }
  }
}
