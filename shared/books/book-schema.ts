import * as v from 'valibot';
import { codePointLength, documentedAs, documentedCounterpart } from './documented-checks';

/**
 * The Book schema: a book's client fields with their rules, and what the rest of the code derives
 * from them. Apart from ./schemas (the parsers) so that ./types can derive its types from it
 * without a cycle.
 */

export const MAX_TITLE_LENGTH = 500;
export const MAX_AUTHOR_LENGTH = 300;
export const MAX_ISBN_LENGTH = 32;
export const MIN_PUBLICATION_YEAR = 1000;

export const BODY_MESSAGE = 'Request body must be a JSON object';

const isPresent = (value: unknown): boolean => value !== undefined && value !== null;

/** `null` reads as missing; in JSON Schema the field's `type` already excludes it. */
const present = (message: string) => documentedAs(v.check(isPresent, message), {});

/** ECMAScript's white space and line terminators (what `String.prototype.trim` and `\s` remove), spelled out. */
const WHITE_SPACE = String.raw`\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;

/**
 * Control characters a text field refuses: Unicode's Cc (C0, DEL, C1) except tab, line feed and
 * carriage return, the three that text formats (XML 1.0's Char, JSON strings, CSV) carry as
 * white space. NUL and the rest confuse C-string consumers, terminals and exports.
 */
const CONTROL = String.raw`\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f`;
const CONTROL_CHARACTER = new RegExp(`[${CONTROL}]`);
export const hasControlCharacter = (text: string): boolean => CONTROL_CHARACTER.test(text);

/**
 * Text that UTF-8 can carry, and that was text: no unpaired surrogate (a JSON `"\ud800"` decodes to
 * one; DynamoDB stores strings as UTF-8, so it would be stored altered or refused), and no U+FFFD,
 * the replacement character decoders put where bytes were not UTF-8 (a query's `%FF` arrives as it).
 */
export const isWellFormed = (text: string): boolean => !/[\p{Surrogate}\ufffd]/u.test(text);

/**
 * The one JSON Schema pattern that says what a text field's checks say together: no control
 * character, no U+FFFD (a surrogate cannot occur in JSON Schema's Unicode text), and one character
 * that is not white space (nor, for the ISBN, a hyphen, which normalising removes too).
 */
const textPattern = (alsoBlank: string) =>
  `^[^${CONTROL}\\ufffd]*[^${CONTROL}\\ufffd${WHITE_SPACE}${alsoBlank}][^${CONTROL}\\ufffd]*$`;

export const wellFormed = (message: string, fragment: Record<string, unknown> = {}) =>
  documentedAs(
    v.check((text: string) => isWellFormed(text), message),
    fragment,
  );

/** At most `max` Unicode code points, counted as JSON Schema's `maxLength` counts them. */
const maxCodePoints = (max: number, message: string) =>
  documentedAs(
    v.check((text: string) => codePointLength(text) <= max, message),
    { maxLength: max },
  );

/**
 * A required text field: `null`, missing and blank all read as "required", as the spec words it.
 * `alsoBlank`: characters that count as blank too (the ISBN's hyphen: an ISBN of only hyphens and
 * spaces normalises to nothing, so it is no ISBN).
 */
const requiredText = (label: string, maxLength: number, alsoBlank = '', required = `${label} is required`) => {
  const blank = new RegExp(`^[${WHITE_SPACE}${alsoBlank}]*$`);
  return v.pipe(
    v.unknown(),
    present(required),
    v.string(`${label} must be a string`),
    wellFormed(`${label} must be valid Unicode text`),
    documentedAs(
      v.check((text: string) => !hasControlCharacter(text), `${label} must not contain control characters`),
      {},
    ),
    documentedAs(
      v.check((text: string) => !blank.test(text), required),
      { pattern: textPattern(alsoBlank) },
    ),
    maxCodePoints(maxLength, `${label} must be at most ${maxLength} characters`),
  );
};

/** An optional text field: it may be left out, but when sent it is text as a required one is. */
export const optionalText = (label: string, maxLength: number) =>
  v.exactOptional(requiredText(label, maxLength, '', `${label} must not be blank`));

const publicationYear = v.pipe(
  v.unknown(),
  present('Publication year is required'),
  v.number('Publication year must be an integer'),
  v.safeInteger('Publication year must be an integer'),
  v.minValue(MIN_PUBLICATION_YEAR, 'Invalid publication year'),
);

/**
 * The client fields of a book: the one list the types, the OpenAPI document, the Idempotency-Key
 * fingerprint and the store's attributes derive from (CONTRIBUTING.md, "Adding a field"). An
 * optional field is wrapped in `v.exactOptional`: a PUT that omits it removes it.
 */
const fields = {
  title: requiredText('Title', MAX_TITLE_LENGTH),
  author: requiredText('Author', MAX_AUTHOR_LENGTH),
  isbn: requiredText('ISBN', MAX_ISBN_LENGTH, '-'),
  publicationYear,
};

type Fields = typeof fields;
type FieldName = keyof Fields;

/** The client fields, in the order the contract lists them and responses carry them. */
export const BOOK_INPUT_FIELDS = Object.keys(fields) as FieldName[];

/** A book's fields, in the order the contract lists them and responses carry them. */
export const BOOK_FIELDS = ['id', ...BOOK_INPUT_FIELDS, 'createdAt', 'updatedAt'] as const;

const isNumber = (schema: unknown): boolean => {
  const { type, pipe, wrapped } = schema as { type: string; pipe?: unknown[]; wrapped?: unknown };
  return type === 'number' || (pipe ?? []).slice(1).some(isNumber) || (wrapped !== undefined && isNumber(wrapped));
};

/** The fields stored and read as numbers (DynamoDB's `N`); the rest are strings. */
export const NUMBER_FIELDS: ReadonlySet<string> = new Set([
  'id',
  ...BOOK_INPUT_FIELDS.filter((field) => isNumber(fields[field])),
]);

const maxLengthOf = (schema: unknown): number | undefined => {
  const { pipe, wrapped } = schema as { pipe?: object[]; wrapped?: unknown };
  if (wrapped !== undefined) return maxLengthOf(wrapped);
  const limits = (pipe ?? []).map((item) => documentedCounterpart(item)?.maxLength).filter((max) => max !== undefined);
  return limits.length > 0 ? Number(limits[0]) : undefined;
};

/** The text fields and their longest allowed values in code points: what sizes a stored and a listed book. */
export const TEXT_FIELD_MAX_LENGTHS: Readonly<Record<string, number>> = Object.fromEntries(
  BOOK_INPUT_FIELDS.flatMap((field) => {
    const max = maxLengthOf(fields[field]);
    return max === undefined ? [] : [[field, max]];
  }),
);

/** What a required field says when it is missing: its own message for `undefined`. */
const requiredMessages: Record<string, string> = Object.fromEntries(
  BOOK_INPUT_FIELDS.flatMap((field) => {
    const issue = v.safeParse(fields[field], undefined).issues?.[0];
    return issue ? [[field, issue.message]] : [];
  }),
);

/**
 * valibot reports a missing key with the object's message, not the field's; this maps it back to
 * the spec's per-field message, and anything that is not an object to the `body` message.
 */
const objectMessage: v.ErrorMessage<v.ObjectIssue> = (issue) => {
  const key = issue.path?.[0]?.key;
  return (typeof key === 'string' && requiredMessages[key]) || BODY_MESSAGE;
};

/** POST and PUT bodies. Unknown keys (id, createdAt, ...) are dropped. */
export const BookInputSchema = v.object(fields, objectMessage);

type Unwrapped<S> = S extends v.ExactOptionalSchema<infer W, undefined> ? W : S;
const unwrapped = <S>(schema: S): Unwrapped<S> => {
  const { type, wrapped } = schema as { type: string; wrapped?: unknown };
  return (type === 'exact_optional' ? wrapped : schema) as Unwrapped<S>;
};

/** PATCH bodies: every field optional, but a supplied field is validated as on POST. */
export const BookPatchSchema = v.object(
  Object.fromEntries(BOOK_INPUT_FIELDS.map((field) => [field, v.exactOptional(unwrapped(fields[field]))])) as {
    [K in FieldName]: v.ExactOptionalSchema<Unwrapped<Fields[K]>, undefined>;
  },
  BODY_MESSAGE,
);
