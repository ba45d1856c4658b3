import { describe, expect, it } from 'vitest';
import { DEFAULT_LIST_MAX_BOOKS } from '../../shared/books/limits';
import { LARGEST_BOOK, MAX_LISTED_BOOK_BYTES } from '../../shared/books/list-limits';
import { parseBookInput } from '../../shared/books/schemas';
import { DEFAULTS, readSetting } from '../../shared/config';
import { STREAMED_RESPONSE_MAX_BYTES } from '../../shared/http/lambda-limits';

describe('the unpaged list’s default cap', () => {
  it('is derived from a book with every field at its longest and costliest in JSON, control characters included (stored before they were refused)', () => {
    const { title, author, isbn, publicationYear } = LARGEST_BOOK;
    const lengthsAccepted = {
      title: 'a'.repeat(title.length),
      author: 'a'.repeat(author.length),
      isbn: 'a'.repeat(isbn.length),
    };
    expect(parseBookInput({ ...lengthsAccepted, publicationYear })).toEqual({ ...lengthsAccepted, publicationYear });
    expect(() => parseBookInput({ ...lengthsAccepted, title: `${lengthsAccepted.title}x`, publicationYear })).toThrow();
    expect(() =>
      parseBookInput({ ...lengthsAccepted, author: `${lengthsAccepted.author}x`, publicationYear }),
    ).toThrow();
    expect(() => parseBookInput({ ...lengthsAccepted, isbn: `${lengthsAccepted.isbn}x`, publicationYear })).toThrow();
    // Six bytes a character (`\u0001`), more than any other character costs, astral ones included.
    for (const character of ['\u0000', '\u001f', '"', 'é', '\u2028', '\uffff', '😀']) {
      expect(JSON.stringify(character).length - 2).toBeLessThanOrEqual(6);
      expect(Buffer.byteLength(JSON.stringify(character)) - 2).toBeLessThanOrEqual(6);
    }
    expect(MAX_LISTED_BOOK_BYTES).toBe(5_168);
  });

  it('keeps a whole list of the largest books below Lambda’s 200 MB with at least 9 % to spare', () => {
    const largestList = DEFAULT_LIST_MAX_BOOKS * MAX_LISTED_BOOK_BYTES + 2;
    expect(largestList).toBeLessThanOrEqual(STREAMED_RESPONSE_MAX_BYTES * 0.91);
    expect((DEFAULT_LIST_MAX_BOOKS + 3_000) * MAX_LISTED_BOOK_BYTES).toBeGreaterThan(STREAMED_RESPONSE_MAX_BYTES * 0.9);
  });

  it('is the default of LIST_MAX_BOOKS and of the stack, and an operator may raise it', () => {
    expect(DEFAULTS.listMaxBooks).toBe(DEFAULT_LIST_MAX_BOOKS);
    expect(readSetting('listMaxBooks', {})).toBe(35_000);
    expect(readSetting('listMaxBooks', { LIST_MAX_BOOKS: '250000' })).toBe(250_000);
    expect(() => readSetting('listMaxBooks', { LIST_MAX_BOOKS: '0' })).toThrow(/LIST_MAX_BOOKS/);
  });
});
