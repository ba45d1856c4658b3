import { type FailedCondition, satisfies, type VersionSet } from '../books/preconditions';

/**
 * Conditional requests (RFC 9110 §13). A book's entity tag is a strong validator derived from its
 * stored version: opaque to clients (base64url of the id and version), so they compare it and
 * never read it. It names the book too, so a tag copied from another book never matches.
 */
export const entityTag = (id: number, version: number): string => `"${opaqueTag(id, version)}"`;

/** The request header each of the domain's write conditions comes from. */
const CONDITION_HEADERS = { match: 'If-Match', noneMatch: 'If-None-Match' } as const satisfies Record<
  FailedCondition,
  string
>;

/** The 412's message: which header the book failed, and why. */
export const preconditionFailedMessage = (id: number, condition: FailedCondition): string =>
  condition === 'match'
    ? `Book ${id} does not match ${CONDITION_HEADERS.match} (it has changed since that version was read)`
    : `Book ${id} matches ${CONDITION_HEADERS.noneMatch} (it exists at a version the request excludes)`;

const opaqueTag = (id: number, version: number) => Buffer.from(`${id}.${version}`, 'utf8').toString('base64url');

/**
 * The version an opaque tag names for this book, or undefined when it is not one of this book's tags.
 * Only a tag this service issues names a version: RFC 9110 §8.8.3.2 compares opaque-tags character
 * by character, so a text that decodes to the same numbers (`1.01`, `1.0000000000000001`, spare
 * base64 bits) is another tag, one no book ever carried.
 */
export const versionOf = (id: number, opaque: string): number | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(opaque)) return undefined;
  const match = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(opaque, 'base64url').toString('utf8'));
  if (!match || Number(match[1]) !== id) return undefined;
  const version = Number(match[2]);
  return Number.isSafeInteger(version) && version >= 1 && opaqueTag(id, version) === opaque ? version : undefined;
};

/** What a precondition header asks for: any current representation (`*`), or one of these tags. */
export type TagList = '*' | readonly EntityTag[];

interface EntityTag {
  weak: boolean;
  /** The quoted part without its quotes. */
  opaque: string;
}

/**
 * RFC 9110's entity-tag (etagc without obs-text) and a list of them, or `*`. Empty list elements
 * (`"a",` or `, "a"`) are accepted and ignored, as RFC 9110 §5.6.1 asks of recipients.
 */
const ENTITY_TAG = String.raw`(?:W/)?"[\x21\x23-\x7e]*"`;
const TAG_LIST_PATTERN = String.raw`^(?:\*|(?:${ENTITY_TAG})?(?:[ \t]*,[ \t]*(?:${ENTITY_TAG})?)*)$`;
const TAG_LIST = new RegExp(TAG_LIST_PATTERN);

/** At most this many tags in one header: one conditional write checks them all (DynamoDB's IN takes 100). */
export const MAX_LISTED_TAGS = 100;

/**
 * A header value as `*` or its tags; undefined when absent. A value that is not `*` or a list of
 * quoted tags, or that lists more than MAX_LISTED_TAGS, names no tag of any book: it is the empty
 * list, which If-Match never satisfies (412, or 404 for a missing book) and If-None-Match never
 * matches (200). RFC 9110 gives no status for a malformed condition; failing it is the safe side.
 */
export const parseTagList = (value: string | undefined): TagList | undefined => {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (!TAG_LIST.test(trimmed)) return [];
  if (trimmed === '*') return '*';
  const tags = [...trimmed.matchAll(/(W\/)?"([^"]*)"/g)].map(([, weak, opaque]) => ({
    weak: weak !== undefined,
    opaque: opaque as string,
  }));
  return tags.length > MAX_LISTED_TAGS ? [] : tags;
};

/** The versions of this book an If-Match names (strong comparison: a weak tag never matches). */
export const ifMatchCondition = (id: number, tags: TagList | undefined): VersionSet | undefined =>
  tags === undefined || tags === '*' ? tags : versionsNamed(id, tags, 'strong');

/** The versions of this book an If-None-Match names (weak comparison, RFC 9110 §13.1.2). */
export const ifNoneMatchCondition = (id: number, tags: TagList | undefined): VersionSet | undefined =>
  tags === undefined || tags === '*' ? tags : versionsNamed(id, tags, 'weak');

const versionsNamed = (id: number, tags: readonly EntityTag[], comparison: 'strong' | 'weak'): number[] => {
  const versions = tags
    .filter((tag) => comparison === 'weak' || !tag.weak)
    .map((tag) => versionOf(id, tag.opaque))
    .filter((version): version is number => version !== undefined);
  return [...new Set(versions)];
};

/** If-None-Match on a read: weak comparison (RFC 9110 §13.1.2), so `W/` before a current tag still matches. */
export const noneMatch = (id: number, version: number, tags: TagList | undefined): boolean =>
  satisfies(version, { noneMatch: ifNoneMatchCondition(id, tags) });
