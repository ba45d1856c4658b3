import { fullDiff, ResourceImpact } from '@aws-cdk/cloudformation-diff';

/**
 * Resource types whose replacement or deletion loses what they hold (items, messages, archived
 * events, objects, logs, the keys that decrypt them, secrets, users). Replacing one makes a new,
 * empty resource; deleting one drops it, or orphans it outside the stack under a Retain policy.
 */
const DATA_RESOURCE_TYPES: ReadonlySet<string> = new Set([
  'AWS::DynamoDB::Table',
  'AWS::DynamoDB::GlobalTable',
  'AWS::SQS::Queue',
  'AWS::Events::Archive',
  'AWS::S3::Bucket',
  'AWS::Logs::LogGroup',
  'AWS::KMS::Key',
  'AWS::SecretsManager::Secret',
  'AWS::Kinesis::Stream',
  'AWS::Cognito::UserPool',
  'AWS::EFS::FileSystem',
  'AWS::RDS::DBCluster',
  'AWS::RDS::DBInstance',
]);

/** What an update would do to a resource holding data, for the check's report. */
const LOSING: ReadonlyMap<ResourceImpact, string> = new Map([
  [ResourceImpact.WILL_REPLACE, 'replaced'],
  [ResourceImpact.MAY_REPLACE, 'may be replaced'],
  [ResourceImpact.WILL_DESTROY, 'deleted'],
  [ResourceImpact.WILL_ORPHAN, 'removed from the stack (orphaned)'],
]);

export type Template = Record<string, unknown>;

/**
 * Every resource holding data that deploying `next` over `previous` would replace or delete, one
 * line each (empty: safe). The judgement is cloudformation-diff's, the library behind `cdk diff`,
 * which knows from the resource specification which property changes force a replacement.
 */
export const dataLossBetween = (previous: Template, next: Template): string[] => {
  const losses: string[] = [];
  fullDiff(previous, next).resources.forEachDifference((logicalId, change) => {
    const type = change.oldResourceType ?? change.newResourceType ?? '';
    const impact = change.resourceTypeChanged ? 'replaced (its type changed)' : LOSING.get(change.changeImpact);
    if (DATA_RESOURCE_TYPES.has(type) && impact) losses.push(`${logicalId} (${type}) would be ${impact}`);
  });
  return losses;
};
