import { Stack } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import { CfnPermission } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';

/**
 * The CDK names the stage in each method's invoke permission by a reference to the Stage resource,
 * so CloudFormation creates a new route's permission only after the Stage points at the Deployment
 * that uses it: requests meanwhile get 500. The stage's name is known, so the permissions name it as
 * text and are created before the Stage moves.
 */
export const nameStageInPermissions = (scope: IConstruct, api: apigateway.RestApi, stageName: string) => {
  const stack = Stack.of(scope);
  const stageReference = JSON.stringify(stack.resolve(api.deploymentStage.stageName));
  const replace = (value: unknown): unknown => {
    if (JSON.stringify(value) === stageReference) return stageName;
    if (Array.isArray(value)) return value.map(replace);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, replace(inner)]));
    }
    return value;
  };
  for (const child of scope.node.findAll()) {
    if (!(child instanceof CfnPermission) || !child.sourceArn) continue;
    const sourceArn = stack.resolve(child.sourceArn);
    const named = replace(sourceArn);
    if (JSON.stringify(named) !== JSON.stringify(sourceArn)) child.addPropertyOverride('SourceArn', named);
  }
};
