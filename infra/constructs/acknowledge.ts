import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** A cdk-nag finding accepted on purpose, with the reason next to the construct it concerns. */
export const acknowledge = (scope: IConstruct, id: string, reason: string) =>
  Validations.of(scope).acknowledge({ id, reason });
