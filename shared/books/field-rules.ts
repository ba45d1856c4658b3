import * as v from 'valibot';
import { codePointLength, withJsonSchema } from './documented-checks';

/**
 * The rules a Book field is built from (./book-schema): text, required or optional, and a fixed
 * list of allowed values. Each check carries its JSON Schema counterpart, so the OpenAPI document,
 * the contract's table and the tests read a field's constraints from the field itself.
 */

const isPresent = (value: unknown): boolean => value !== undefined && value !== null;

/** `null` reads as missing; in JSON Schema the field's `type` already excludes it. */
export const present = (message: string) => withJsonSchema(v.check(isPresent, message), {});

/** ECMAScript's white space and line terminators (what `String.prototype.trim` and `\s` remove), spelled out. */
const WHITE_SPACE = String.raw`\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;

/**
 * Control characters a text field refuses: Unicode's Cc (C0, DEL, C1) except tab, line feed and
 * carriage return, the three that text formats (XML 1.0's Char, JSON strings, CSV) carry as
 * white space. NUL and the rest confuse C-string consumers, terminals and exports.
 */
const CONTROL = String.raw`\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f`;
const CONTROL_CHARACTER = new RegExp(`[${CONTROL}]`);
const hasControlCharacter = (text: string): boolean => CONTROL_CHARACTER.test(text);

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
  withJsonSchema(
    v.check((text: string) => isWellFormed(text), message),
    fragment,
  );

/** At most `max` Unicode code points, counted as JSON Schema's `maxLength` counts them. */
const maxCodePoints = (max: number, message: string) =>
  withJsonSchema(
    v.check((text: string) => codePointLength(text) <= max, message),
    { maxLength: max },
  );

/**
 * A required text field: `null`, missing and blank all read as "required", as the spec words it.
 * `alsoBlank`: characters that count as blank too (the ISBN's hyphen: an ISBN of only hyphens and
 * spaces normalises to nothing, so it is no ISBN).
 */
export const requiredText = (label: string, maxLength: number, alsoBlank = '', required = `${label} is required`) => {
  const blank = new RegExp(`^[${WHITE_SPACE}${alsoBlank}]*$`);
  return v.pipe(
    v.unknown(),
    present(required),
    v.string(`${label} must be a string`),
    wellFormed(`${label} must be valid Unicode text`),
    withJsonSchema(
      v.check((text: string) => !hasControlCharacter(text), `${label} must not contain control characters`),
      {},
    ),
    withJsonSchema(
      v.check((text: string) => !blank.test(text), required),
      { pattern: textPattern(alsoBlank) },
    ),
    maxCodePoints(maxLength, `${label} must be at most ${maxLength} characters`),
  );
};

/**
 * An optional text field: it may be left out (and a PATCH's `null` removes it), but when sent it is
 * text as a required one is.
 */
export const optionalTextField = (label: string, maxLength: number) =>
  v.exactOptional(requiredText(label, maxLength, '', `${label} must not be blank`));

/**
 * A field whose value is one of a fixed list of strings (a language code, a format): required,
 * or optional when wrapped in `v.exactOptional`. The JSON Schema says `enum`.
 */
export const allowedValues = (label: string, values: readonly [string, ...string[]]) =>
  v.pipe(
    v.unknown(),
    present(`${label} is required`),
    v.string(`${label} must be a string`),
    withJsonSchema(
      v.check((value: string) => values.includes(value), `${label} must be one of ${values.join(', ')}`),
      { enum: [...values] },
    ),
  );
