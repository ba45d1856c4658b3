import * as v from 'valibot';
import { decodeCursor } from './cursor';
import { ValidationError } from './errors';
import { DEFAULT_PAGE_LIMIT, MAX_BOOK_ID, MAX_PAGE_LIMIT } from './limits';
import type { BookFilter, BookInput, BookListQuery, BookPatch, FieldErrors } from './types';

export const MAX_TITLE_LENGTH = 500;
export const MAX_AUTHOR_LENGTH = 300;
export const MAX_ISBN_LENGTH = 32;
export const MIN_PUBLICATION_YEAR = 1000;

const BODY_MESSAGE = 'Request body must be a JSON object';

const isPresent = (value: unknown): boolean => value !== undefined && value !== null;

/** A required text field: `null`, missing and blank all read as "required", as the spec words it. */
const requiredText = (label: string, maxLength: number) => {
  const required = `${label} is required`;
  return v.pipe(
    v.unknown(),
    v.check(isPresent, required),
    v.string(`${label} must be a string`),
    v.check((text) => text.trim().length > 0, required),
    v.maxLength(maxLength, `${label} must be at most ${maxLength} characters`),
  );
};

const publicationYear = v.pipe(
  v.unknown(),
  v.check(isPresent, 'Publication year is required'),
  v.number('Publication year must be an integer'),
  v.safeInteger('Publication year must be an integer'),
  v.minValue(MIN_PUBLICATION_YEAR, 'Invalid publication year'),
);

const fields = {
  title: requiredText('Title', MAX_TITLE_LENGTH),
  author: requiredText('Author', MAX_AUTHOR_LENGTH),
  isbn: requiredText('ISBN', MAX_ISBN_LENGTH),
  publicationYear,
};

const requiredMessages: Record<string, string> = {
  title: 'Title is required',
  author: 'Author is required',
  isbn: 'ISBN is required',
  publicationYear: 'Publication year is required',
};

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

/** PATCH bodies: every field optional, but a supplied field is validated as on POST. */
export const BookPatchSchema = v.object(
  {
    title: v.exactOptional(fields.title),
    author: v.exactOptional(fields.author),
    isbn: v.exactOptional(fields.isbn),
    publicationYear: v.exactOptional(fields.publicationYear),
  },
  BODY_MESSAGE,
);

/** A path id as it arrives: a positive decimal integer no larger than 2^53-1. */
export const BookIdSchema = v.pipe(
  v.string(),
  v.regex(/^[1-9][0-9]{0,15}$/),
  v.transform(Number),
  v.maxValue(MAX_BOOK_ID),
);

const YEAR_MESSAGE = 'Year must be an integer';
const LIMIT_MESSAGE = `Limit must be an integer from 1 to ${MAX_PAGE_LIMIT}`;
const CURSOR_MESSAGE = 'Cursor is not valid';

const YearQuerySchema = v.pipe(
  v.string(YEAR_MESSAGE),
  v.description('Equal to publicationYear (an integer)'),
  v.regex(/^[+-]?[0-9]{1,16}$/, YEAR_MESSAGE),
  v.transform(Number),
  v.safeInteger(YEAR_MESSAGE),
);

/**
 * Query parameters of GET /api/books, as the strings they arrive as. Unknown parameters are dropped.
 * The OpenAPI document lists one parameter per entry, so a field added here is documented too.
 */
export const BookQuerySchema = v.object({
  author: v.exactOptional(v.pipe(v.string(), v.description('Equal ignoring case (Unicode NFC, no trimming)'))),
  year: v.exactOptional(YearQuerySchema),
  limit: v.exactOptional(
    v.pipe(
      v.string(LIMIT_MESSAGE),
      v.description(
        `Page size, 1 to ${MAX_PAGE_LIMIT}; with it the response carries a \`Link: <…>; rel="next"\` header while more books match`,
      ),
      v.regex(/^[0-9]{1,4}$/, LIMIT_MESSAGE),
      v.transform(Number),
      v.minValue(1, LIMIT_MESSAGE),
      v.maxValue(MAX_PAGE_LIMIT, LIMIT_MESSAGE),
    ),
  ),
  cursor: v.exactOptional(
    v.pipe(
      v.string(CURSOR_MESSAGE),
      v.description('Opaque: the `next` link of the previous page carries it'),
      v.transform(decodeCursor),
      v.number(CURSOR_MESSAGE),
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

export const parseBookInput = (body: unknown): BookInput => {
  rejectArray(body);
  return parseOrThrow(BookInputSchema, body) as BookInput;
};

export const parseBookPatch = (body: unknown): BookPatch => {
  rejectArray(body);
  return parseOrThrow(BookPatchSchema, body) as BookPatch;
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
