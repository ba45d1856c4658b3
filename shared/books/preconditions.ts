/**
 * Conditions a write puts on the stored version of a book: RFC 9110 §13's preconditions in the
 * domain's terms, plain version numbers with no entity tags or syntax (shared/http/preconditions.ts
 * derives them from a request).
 */

/** Versions a condition names: any existing book (`*`), or these stored versions. */
export type VersionSet = '*' | readonly number[];

/**
 * What a write may proceed on, checked inside the write itself: `match`, the book exists at one of
 * these versions (`*`: at any; an empty list: none can be); `noneMatch`, its version is none of these
 * (`*`: no book may exist, so a write on an existing book never proceeds). A missing book is
 * BookNotFoundError whatever the condition. A failure names the condition that failed
 * (PreconditionFailedError's `condition`); shared/http says which header that was.
 */
export interface VersionCondition {
  match?: VersionSet;
  noneMatch?: VersionSet;
}

/** The part of a VersionCondition that failed. */
export type FailedCondition = keyof VersionCondition;

/** Which condition a book at `version` fails, `match` evaluated first (RFC 9110 §13.2.2); undefined when it passes. */
export const failedPrecondition = (
  version: number,
  condition: VersionCondition | undefined,
): FailedCondition | undefined => {
  const { match, noneMatch } = condition ?? {};
  if (match !== undefined && match !== '*' && !match.includes(version)) return 'match';
  if (noneMatch === '*' || noneMatch?.includes(version)) return 'noneMatch';
  return undefined;
};

export const satisfies = (version: number, condition: VersionCondition | undefined): boolean =>
  failedPrecondition(version, condition) === undefined;
