import * as v from 'valibot';
import { BODY_MESSAGE, BOOK_SCHEMA, type BookSchema } from './book-schema';
import { CURSOR_PATTERN } from './cursor';
import { positiveIntegerPattern } from './documented-checks';
import { ValidationError } from './errors';
import { wellFormed } from './field-rules';
import { DEFAULT_PAGE_LIMIT, MAX_BOOK_ID, MAX_PAGE_LIMIT } from './limits';
import type { BookFilter, BookInput, BookListQuery, BookPatch, FieldErrors } from './types';

/** A path id as it arrives: a positive decimal integer no larger than 2^53-1 (the pattern says it all). */
export const BookIdSchema = v.pipe(
  v.string(),
  v.regex(new RegExp(`^${positiveIntegerPattern(MAX_BOOK_ID)}$`)),
  v.transform(Number),
);

const YEAR_MESSAGE = 'Year must be an integer';
const LIMIT_MESSAGE = `Limit must be an integer from 1 to ${MAX_PAGE_LIMIT}`;
const CURSOR_MESSAGE = 'Cursor is not valid';

/** A safe integer in decimal, an optional sign and leading zeros allowed (as `Number` reads them). */
const YearQuerySchema = v.pipe(
  v.string(YEAR_MESSAGE),
  v.description('Equal to publicationYear (an integer)'),
  v.regex(new RegExp(`^[+-]?0*(?:0|${positiveIntegerPattern(Number.MAX_SAFE_INTEGER)})$`), YEAR_MESSAGE),
  v.transform(Number),
);

/**
 * Query parameters of GET /api/books, as the strings they arrive as. Unknown parameters are dropped.
 * The OpenAPI document lists one parameter per entry, so a field added here is documented too.
 */
export const BookQuerySchema = v.object({
  author: v.exactOptional(
    v.pipe(
      v.string(),
      v.description('Equal ignoring case (Unicode NFC, no trimming)'),
      wellFormed('Author must be valid Unicode text', { pattern: '^[^\\ufffd]*$' }),
    ),
  ),
  year: v.exactOptional(YearQuerySchema),
  limit: v.exactOptional(
    v.pipe(
      v.string(LIMIT_MESSAGE),
      v.description(
        `Page size, 1 to ${MAX_PAGE_LIMIT}; with it the response carries a \`Link: <…>; rel="next"\` header while more books match`,
      ),
      v.regex(new RegExp(`^${positiveIntegerPattern(MAX_PAGE_LIMIT)}$`), LIMIT_MESSAGE),
      v.transform(Number),
    ),
  ),
  cursor: v.exactOptional(
    v.pipe(
      v.string(CURSOR_MESSAGE),
      v.description('Opaque: the `next` link of the previous page carries it'),
      v.regex(CURSOR_PATTERN, CURSOR_MESSAGE),
      v.transform(Number),
    ),
  ),
});

/** First message per field, in the shape of the 400 body's `errors`. */
const toFieldErrors = (issues: readonly v.BaseIssue<unknown>[]): FieldErrors => {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const field = v.getDotPath(issue) ?? 'body';
    errors[field] ??= issue.message;
  }
  return errors;
};

const parseOrThrow = <S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> => {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (!result.success) throw new ValidationError(toFieldErrors(result.issues));
  return result.output;
};

/** valibot's object schemas accept arrays (they are objects in JavaScript); a body must not be one. */
const rejectArray = (body: unknown): void => {
  if (Array.isArray(body)) throw new ValidationError({ body: BODY_MESSAGE });
};

export const parseBookInput = (body: unknown, schema: BookSchema = BOOK_SCHEMA): BookInput => {
  rejectArray(body);
  return parseOrThrow(schema.input, body) as BookInput;
};

export const parseBookPatch = (body: unknown, schema: BookSchema = BOOK_SCHEMA): BookPatch => {
  rejectArray(body);
  return parseOrThrow(schema.patch, body) as BookPatch;
};

/** A path id: a positive decimal integer no larger than 2^53-1. */
export const parseBookId = (raw: string | undefined): number => {
  const result = v.safeParse(BookIdSchema, raw);
  if (!result.success) throw new ValidationError({ id: 'Book id must be a positive integer' });
  return result.output;
};

/** Query parameters of the list: the filter, and a page when `limit` or `cursor` asks for one. */
export const parseBookQuery = (query: Record<string, string | undefined> | null): BookListQuery => {
  const { author, year, limit, cursor } = parseOrThrow(BookQuerySchema, query ?? {});
  const filter: BookFilter = {};
  if (author !== undefined) filter.author = author;
  if (year !== undefined) filter.year = year;
  if (limit === undefined && cursor === undefined) return { filter };
  return { filter, page: { limit: limit ?? DEFAULT_PAGE_LIMIT, ...(cursor !== undefined && { after: cursor }) } };
};
