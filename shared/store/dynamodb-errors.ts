/** A conditional write lost its condition (the item existed, or changed, or was gone). */
export const isConditionalCheckFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';
