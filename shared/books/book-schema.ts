import * as v from 'valibot';
import { codePointLength, jsonSchemaOf } from './documented-checks';
import { present, requiredText } from './field-rules';

/**
 * The Book schema: a book's client fields with their rules, and what the rest of the code derives
 * from them. Apart from ./schemas (the parsers) so that ./types can derive its types from it
 * without a cycle. The field rules themselves are in ./field-rules.
 */

const MAX_TITLE_LENGTH = 500;
export const MAX_AUTHOR_LENGTH = 300;
export const MAX_ISBN_LENGTH = 32;
const MIN_PUBLICATION_YEAR = 1000;

export const BODY_MESSAGE = 'Request body must be a JSON object';

const publicationYear = v.pipe(
  v.unknown(),
  present('Publication year is required'),
  v.number('Publication year must be an integer'),
  v.safeInteger('Publication year must be an integer'),
  v.minValue(MIN_PUBLICATION_YEAR, 'Invalid publication year'),
);

/**
 * The client fields of a book: the one place a field is written (CONTRIBUTING.md, "Adding a
 * field"). An optional field is wrapped in `v.exactOptional` (`optionalTextField` for text): a PUT
 * that omits it removes it, and so does a PATCH that sends it as `null`.
 */
const fields = {
  title: requiredText('Title', MAX_TITLE_LENGTH),
  author: requiredText('Author', MAX_AUTHOR_LENGTH),
  isbn: requiredText('ISBN', MAX_ISBN_LENGTH, '-'),
  publicationYear,
};

type Rule = { type: string; kind?: string; pipe?: Rule[]; wrapped?: Rule };
const isOptional = (rule: unknown): boolean => (rule as Rule).type === 'exact_optional';
/** The rule inside `v.exactOptional` (or `v.nullable`), or the rule itself. */
const unwrapped = (rule: unknown): Rule => {
  const { wrapped } = rule as Rule;
  return wrapped === undefined ? (rule as Rule) : unwrapped(wrapped);
};
const pipeOf = (rule: unknown): Rule[] => unwrapped(rule).pipe ?? [];

const isNumber = (rule: unknown): boolean =>
  unwrapped(rule).type === 'number' ||
  pipeOf(rule)
    .slice(1)
    .some((item) => item.kind === 'schema' && isNumber(item));

/** The values a field is limited to (its `enum`), or undefined. */
const allowedValuesOf = (rule: unknown): readonly string[] | undefined => {
  for (const item of pipeOf(rule)) {
    const values = jsonSchemaOf(item)?.enum;
    if (Array.isArray(values)) return values.map(String);
  }
  return undefined;
};

/** The longest value a text field allows, in code points: its `maxLength`, or its longest allowed value. */
const maxLengthOf = (rule: unknown): number | undefined => {
  for (const item of pipeOf(rule)) {
    const { maxLength, enum: values } = jsonSchemaOf(item) ?? {};
    if (maxLength !== undefined) return Number(maxLength);
    if (Array.isArray(values)) return Math.max(...values.map((value) => codePointLength(String(value))));
  }
  return undefined;
};

/** What the rest of the code needs to know of a Book schema; `bookSchemaOf` derives it from the fields. */
export interface BookSchema {
  /** The client fields, in the order the contract lists them and responses carry them. */
  readonly inputFields: readonly string[];
  /** The fields a POST and PUT may leave out (and a PATCH may remove with `null`). */
  readonly optionalFields: ReadonlySet<string>;
  /** The fields stored and read as numbers (DynamoDB's `N`), `id` included; the rest are strings. */
  readonly numberFields: ReadonlySet<string>;
  /** The text fields and their longest allowed values in code points: what sizes a stored and a listed book. */
  readonly textMaxLengths: Readonly<Record<string, number>>;
  /** The fields limited to a list of values, and their values. */
  readonly allowedValues: Readonly<Record<string, readonly string[]>>;
  readonly input: v.GenericSchema;
  readonly patch: v.GenericSchema;
}

/**
 * Everything derived from a set of field rules: the POST/PUT and PATCH schemas and the facts the
 * store, the list's size limits and the fingerprint read. Takes the fields so a test can pass its
 * own (with an optional or an enumerated field) through the same code.
 */
export const bookSchemaOf = <F extends Record<string, v.GenericSchema>>(fields: F) => {
  const names = Object.keys(fields) as (keyof F & string)[];
  const optionalFields = new Set<string>(names.filter((field) => isOptional(fields[field])));

  /** What a required field says when it is missing: its own message for `undefined`. */
  const requiredMessages: Record<string, string> = Object.fromEntries(
    names.flatMap((field) => {
      const issue = v.safeParse(fields[field] as v.GenericSchema, undefined).issues?.[0];
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

  type Patchable<S extends v.GenericSchema> =
    S extends v.ExactOptionalSchema<infer W, undefined>
      ? v.ExactOptionalSchema<v.NullableSchema<W, undefined>, undefined>
      : v.ExactOptionalSchema<S, undefined>;
  /** PATCH: every field optional and validated as on POST; `null` removes an optional field, a required one refuses it. */
  const patchRule = (rule: v.GenericSchema) =>
    isOptional(rule) ? v.exactOptional(v.nullable(unwrapped(rule) as v.GenericSchema)) : v.exactOptional(rule);

  return {
    inputFields: names,
    optionalFields,
    numberFields: new Set(['id', ...names.filter((field) => isNumber(fields[field]))]) as ReadonlySet<string>,
    textMaxLengths: Object.fromEntries(
      names.flatMap((field) => {
        const max = isNumber(fields[field]) ? undefined : maxLengthOf(fields[field]);
        return max === undefined ? [] : [[field, max]];
      }),
    ) as Readonly<Record<string, number>>,
    allowedValues: Object.fromEntries(
      names.flatMap((field) => {
        const values = allowedValuesOf(fields[field]);
        return values === undefined ? [] : [[field, values]];
      }),
    ) as Readonly<Record<string, readonly string[]>>,
    /** POST and PUT bodies. Unknown keys (id, createdAt, ...) are dropped. */
    input: v.object(fields, objectMessage),
    patch: v.object(
      Object.fromEntries(names.map((field) => [field, patchRule(fields[field] as v.GenericSchema)])) as {
        [K in keyof F]: Patchable<F[K]>;
      },
      BODY_MESSAGE,
    ),
  } satisfies BookSchema;
};

/** The service's Book schema. */
export const BOOK_SCHEMA = bookSchemaOf(fields);

/** The client fields, in the order the contract lists them and responses carry them. */
export const BOOK_INPUT_FIELDS = BOOK_SCHEMA.inputFields;

/** A book's fields, in the order the contract lists them and responses carry them. */
export const BOOK_FIELDS = ['id', ...BOOK_INPUT_FIELDS, 'createdAt', 'updatedAt'] as const;

export const NUMBER_FIELDS = BOOK_SCHEMA.numberFields;
export const TEXT_FIELD_MAX_LENGTHS = BOOK_SCHEMA.textMaxLengths;

/** POST and PUT bodies. Unknown keys (id, createdAt, ...) are dropped. */
export const BookInputSchema = BOOK_SCHEMA.input;
/** PATCH bodies: every field optional, but a supplied field is validated as on POST. */
export const BookPatchSchema = BOOK_SCHEMA.patch;
