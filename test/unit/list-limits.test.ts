import { describe, expect, it } from 'vitest';
import { BOOK_FIELDS, BOOK_INPUT_FIELDS, BookInputSchema, bookSchemaOf } from '../../shared/books/book-schema';
import { allowedValues } from '../../shared/books/field-rules';
import { DEFAULT_LIST_MAX_BOOKS } from '../../shared/books/limits';
import { LARGEST_BOOK, largestBook, MAX_LISTED_BOOK_BYTES } from '../../shared/books/list-limits';
import { parseBookInput } from '../../shared/books/schemas';
import { DEFAULTS, readSetting } from '../../shared/config';
import { STREAMED_RESPONSE_MAX_BYTES } from '../../shared/http/lambda-limits';

const pickInput = (book: object) =>
  Object.fromEntries(Object.entries(book).filter(([field]) => (BOOK_INPUT_FIELDS as string[]).includes(field)));

describe('the unpaged list’s default cap', () => {
  it('is derived from a book with every schema field at its longest and costliest in JSON', () => {
    const { title, author, isbn, publicationYear } = LARGEST_BOOK;
    const lengthsAccepted = {
      title: 'a'.repeat([...title].length),
      author: 'a'.repeat([...author].length),
      isbn: 'a'.repeat([...isbn].length),
    };
    expect(Object.keys(LARGEST_BOOK)).toEqual([...BOOK_FIELDS]);
    expect(parseBookInput({ ...lengthsAccepted, publicationYear })).toEqual({ ...lengthsAccepted, publicationYear });
    expect(parseBookInput(LARGEST_BOOK)).toEqual(pickInput(LARGEST_BOOK));
    for (const field of ['title', 'author', 'isbn'] as const) {
      const longer = { ...lengthsAccepted, [field]: `${lengthsAccepted[field]}x`, publicationYear };
      expect(() => parseBookInput(longer)).toThrow();
    }
    // Four bytes a code point, as much as any character a book may hold costs in JSON.
    for (const character of ['"', '\\', '\t', 'é', '\u2028', '\uffff', '😀']) {
      expect(Buffer.byteLength(JSON.stringify(character)) - 2).toBeLessThanOrEqual(4);
    }
    expect(() => parseBookInput({ ...lengthsAccepted, title: '\u0001', publicationYear })).toThrow();
    expect(MAX_LISTED_BOOK_BYTES).toBe(Buffer.byteLength(JSON.stringify(LARGEST_BOOK)) + 1);
  });

  it('keeps a whole list of the largest books below 90 % of Lambda’s 200 MB', () => {
    const largestList = DEFAULT_LIST_MAX_BOOKS * MAX_LISTED_BOOK_BYTES + 2;
    expect(largestList).toBeLessThanOrEqual(STREAMED_RESPONSE_MAX_BYTES * 0.9);
  });

  it('is the default of LIST_MAX_BOOKS and of the stack, and an operator may raise it', () => {
    expect(DEFAULTS.listMaxBooks).toBe(DEFAULT_LIST_MAX_BOOKS);
    expect(readSetting('listMaxBooks', {})).toBe(DEFAULT_LIST_MAX_BOOKS);
    expect(readSetting('listMaxBooks', { LIST_MAX_BOOKS: '250000' })).toBe(250_000);
    expect(() => readSetting('listMaxBooks', { LIST_MAX_BOOKS: '0' })).toThrow(/LIST_MAX_BOOKS/);
  });
});

describe('the largest book of a schema with a field limited to a list of values', () => {
  it('takes the value longest in JSON, wherever the list has it', () => {
    const schema = bookSchemaOf({
      ...BookInputSchema.entries,
      format: allowedValues('Format', ['hardcover', 'pb', 'e']),
    });
    expect((largestBook(schema) as unknown as Record<string, unknown>).format).toBe('hardcover');
  });
});
