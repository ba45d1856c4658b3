import { BOOK_SCHEMA, type BookSchema } from './book-schema';
import { MAX_BOOK_ID } from './limits';
import type { Book } from './types';

/**
 * The character that costs most in a listed book's JSON: an astral one, 4 UTF-8 bytes for one code
 * point (lengths count code points). Control characters, which JSON writes as six bytes, are refused;
 * quotes, backslashes and the white space JSON escapes take two.
 */
const COSTLIEST_CHARACTER = '📚';
/** The latest instant a JavaScript Date can hold: its ISO form is the longest (27 characters). */
const LATEST_TIMESTAMP = new Date(8.64e15).toISOString();

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

const largestValue = (field: string, schema: BookSchema): unknown => {
  if (field === 'id') return MAX_BOOK_ID;
  if (field === 'createdAt' || field === 'updatedAt') return LATEST_TIMESTAMP;
  if (schema.numberFields.has(field)) return Number.MAX_SAFE_INTEGER;
  const allowed = schema.allowedValues[field];
  if (allowed) return allowed.reduce((longest, value) => (jsonBytes(value) > jsonBytes(longest) ? value : longest));
  const maxLength = schema.textMaxLengths[field];
  if (maxLength === undefined) throw new Error(`Book field ${field} has no maximum length: no list cap can hold it`);
  return COSTLIEST_CHARACTER.repeat(maxLength);
};

/**
 * The largest book the schema allows, as the list writes it: every field, optional ones included,
 * at its longest and costliest (a field with allowed values at its longest allowed value). Kept apart from ./limits so that the configuration table does not
 * load the schemas into every function.
 */
export const largestBook = (schema: BookSchema = BOOK_SCHEMA): Book =>
  Object.fromEntries(
    ['id', ...schema.inputFields, 'createdAt', 'updatedAt'].map((field) => [field, largestValue(field, schema)]),
  ) as unknown as Book;

export const LARGEST_BOOK = largestBook();

/** The bytes one book can add to a streamed list at most: its JSON and the comma before it. */
const maxListedBookBytes = (schema: BookSchema = BOOK_SCHEMA): number =>
  Buffer.byteLength(JSON.stringify(largestBook(schema)), 'utf8') + 1;
export const MAX_LISTED_BOOK_BYTES = maxListedBookBytes();
