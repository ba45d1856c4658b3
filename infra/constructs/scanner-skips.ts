import type { CfnResource } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * A policy scanner's finding accepted on purpose (Checkov's `CKV_…`, cfn-lint's serverless rules'
 * `WS…`), written into the resource's template Metadata with its reason, where the scanners read
 * it: Checkov's `checkov.skip` (id and comment) and cfn-lint's `cfn-lint.config.ignore_checks`
 * (the reason beside it, under `cfn-lint.reasons`, since cfn-lint's own entry has no field for one).
 * The findings that are right are fixed in the constructs instead (docs/verification.md).
 */
export interface ScannerSkip {
  id: string;
  reason: string;
}

const cfnOf = (scope: IConstruct): CfnResource => {
  const child = scope.node.defaultChild ?? scope;
  if (!('addMetadata' in child)) throw new Error(`${scope.node.path} is not a CloudFormation resource`);
  return child as CfnResource;
};

/** Adds the skips to the resource's Metadata, beside any it already has. */
export const skipScanners = (scope: IConstruct, skips: readonly ScannerSkip[]) => {
  const resource = cfnOf(scope);
  const checkov = skips.filter((skip) => skip.id.startsWith('CKV'));
  const cfnLint = skips.filter((skip) => !skip.id.startsWith('CKV'));
  if (checkov.length > 0) {
    const existing = (resource.getMetadata('checkov') as { skip?: object[] } | undefined)?.skip ?? [];
    resource.addMetadata('checkov', {
      skip: [...existing, ...checkov.map(({ id, reason }) => ({ id, comment: reason }))],
    });
  }
  if (cfnLint.length > 0) {
    const existing = resource.getMetadata('cfn-lint') as
      | { config: { ignore_checks: string[] }; reasons: Record<string, string> }
      | undefined;
    resource.addMetadata('cfn-lint', {
      config: { ignore_checks: [...(existing?.config.ignore_checks ?? []), ...cfnLint.map(({ id }) => id)] },
      reasons: { ...existing?.reasons, ...Object.fromEntries(cfnLint.map(({ id, reason }) => [id, reason])) },
    });
  }
};

/** Active tracing is a deployment option, off by default: one reason for every scanner that asks for it. */
export const TRACING_OPTION =
  'Active X-Ray tracing is a deployment option (-c tracing=true), off by default for its cost per trace (docs/operations.md)';

/** Why a public method or one of the API's answers needs no credentials (Checkov CKV_AWS_59). */
export const publicMethodSkip = (reason: string): ScannerSkip => ({ id: 'CKV_AWS_59', reason });
