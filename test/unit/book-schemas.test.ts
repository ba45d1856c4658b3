import { describe, expect, it } from 'vitest';
import { isWellFormed } from '../../shared/books/field-rules';
import { normalizeAuthor, normalizeIsbn } from '../../shared/books/normalize';
import { parseBookId, parseBookInput, parseBookPatch, parseBookQuery } from '../../shared/books/schemas';
import { errorsOf } from '../support/validation';

const parseBookFilter = (query: Record<string, string> | null) => parseBookQuery(query).filter;

const valid = { title: 'Dune', author: 'Frank Herbert', isbn: '978-0441013593', publicationYear: 1965 };

describe('book input (POST and PUT bodies)', () => {
  it('accepts a complete book and drops fields the service owns', () => {
    expect(parseBookInput({ ...valid, id: 99, createdAt: 'x', extra: true })).toEqual(valid);
  });

  it('reports every missing field with the spec message', () => {
    expect(errorsOf(() => parseBookInput({}))).toEqual({
      title: 'Title is required',
      author: 'Author is required',
      isbn: 'ISBN is required',
      publicationYear: 'Publication year is required',
    });
  });

  it.each([
    ['blank', '   '],
    ['empty', ''],
    ['null', null],
    ['undefined', undefined],
  ])('treats a %s string field as missing', (_, value) => {
    expect(errorsOf(() => parseBookInput({ ...valid, title: value, author: value, isbn: value }))).toEqual({
      title: 'Title is required',
      author: 'Author is required',
      isbn: 'ISBN is required',
    });
  });

  it('treats a null publication year as missing', () => {
    expect(errorsOf(() => parseBookInput({ ...valid, publicationYear: null }))).toEqual({
      publicationYear: 'Publication year is required',
    });
  });

  it('rejects a publication year below 1000', () => {
    expect(errorsOf(() => parseBookInput({ ...valid, publicationYear: 999 }))).toEqual({
      publicationYear: 'Invalid publication year',
    });
    expect(parseBookInput({ ...valid, publicationYear: 1000 }).publicationYear).toBe(1000);
  });

  it.each([['1965'], [1965.5], [true], [1e300]])('rejects a publication year of %j as not an integer', (year) => {
    expect(errorsOf(() => parseBookInput({ ...valid, publicationYear: year }))).toEqual({
      publicationYear: 'Publication year must be an integer',
    });
  });

  it('rejects wrongly typed text fields with a message for that field', () => {
    expect(errorsOf(() => parseBookInput({ ...valid, title: 42, author: ['x'], isbn: {} }))).toEqual({
      title: 'Title must be a string',
      author: 'Author must be a string',
      isbn: 'ISBN must be a string',
    });
  });

  it('enforces the length limits', () => {
    const atLimit = { ...valid, title: 't'.repeat(500), author: 'a'.repeat(300), isbn: '9'.repeat(32) };
    expect(parseBookInput(atLimit)).toEqual(atLimit);
    expect(
      errorsOf(() =>
        parseBookInput({ ...atLimit, title: 't'.repeat(501), author: 'a'.repeat(301), isbn: '9'.repeat(33) }),
      ),
    ).toEqual({
      title: 'Title must be at most 500 characters',
      author: 'Author must be at most 300 characters',
      isbn: 'ISBN must be at most 32 characters',
    });
  });

  it.each([[null], [[]], ['text'], [42], [undefined]])('rejects a body of %j as not an object', (body) => {
    expect(errorsOf(() => parseBookInput(body))).toEqual({ body: 'Request body must be a JSON object' });
  });
});

describe('text that UTF-8 cannot carry', () => {
  const lone = ['\ud800', '\udfff', 'a\ud83d', '\ude00b', '\ude00\ud83d'];

  it.each([
    ['title', 'Title must be valid Unicode text'],
    ['author', 'Author must be valid Unicode text'],
    ['isbn', 'ISBN must be valid Unicode text'],
  ])('refuses an unpaired surrogate in %s, in POST, PUT and PATCH bodies alike', (field, message) => {
    for (const text of lone) {
      expect(() => parseBookInput({ ...valid, [field]: text }), JSON.stringify(text)).toThrow(
        expect.objectContaining({ errors: { [field]: message } }),
      );
      expect(() => parseBookPatch({ [field]: text })).toThrow(
        expect.objectContaining({ errors: { [field]: message } }),
      );
    }
  });

  it('takes paired surrogates (characters outside the BMP) and every other character', () => {
    expect(parseBookInput({ ...valid, title: '😀 \ud83d\ude00', author: '\uffff\u200bx', isbn: '𝟘' })).toMatchObject({
      title: '😀 😀',
      isbn: '𝟘',
    });
  });

  it('refuses an unpaired surrogate in the author filter with errors.author', () => {
    for (const text of lone) {
      expect(() => parseBookQuery({ author: text })).toThrow(
        expect.objectContaining({ errors: { author: 'Author must be valid Unicode text' } }),
      );
    }
    expect(parseBookQuery({ author: 'Émile 😀' }).filter).toEqual({ author: 'Émile 😀' });
  });

  it('refuses U+FFFD, which stands where a decoder met bytes that were not UTF-8: in text fields and the author filter', () => {
    expect(errorsOf(() => parseBookInput({ ...valid, title: 'Caf\ufffd', author: '\ufffd', isbn: '1\ufffd' }))).toEqual(
      {
        title: 'Title must be valid Unicode text',
        author: 'Author must be valid Unicode text',
        isbn: 'ISBN must be valid Unicode text',
      },
    );
    expect(errorsOf(() => parseBookQuery({ author: '\ufffd' }))).toEqual({
      author: 'Author must be valid Unicode text',
    });
    expect(errorsOf(() => parseBookQuery({ author: 'x\ufffdy' }))).toEqual({
      author: 'Author must be valid Unicode text',
    });
  });

  it('is well-formed exactly when no lone surrogate and no U+FFFD is left', () => {
    expect(isWellFormed('\ufffd')).toBe(false);
    expect(isWellFormed('')).toBe(true);
    expect(isWellFormed('\ud83d\ude00')).toBe(true);
    for (const text of lone) expect(isWellFormed(text), JSON.stringify(text)).toBe(false);
  });
});

describe('control characters in text fields', () => {
  const controls = [
    '\u0000',
    '\u0001',
    '\u0008',
    '\u000b',
    '\u000c',
    '\u000e',
    '\u001c',
    '\u001f',
    '\u007f',
    '\u0080',
    '\u0085',
    '\u009f',
  ];

  it.each(controls.map((c) => [c]))(
    'refuses %j anywhere in title, author and isbn with the field’s message',
    (control) => {
      const errors = {
        title: 'Title must not contain control characters',
        author: 'Author must not contain control characters',
        isbn: 'ISBN must not contain control characters',
      };
      for (const text of [control, `a${control}`, `${control}b`, `a${control}b`]) {
        expect(errorsOf(() => parseBookInput({ ...valid, title: text, author: text, isbn: text }))).toEqual(errors);
        expect(errorsOf(() => parseBookPatch({ title: text, author: text, isbn: text }))).toEqual(errors);
      }
    },
  );

  it('takes tab, line feed and carriage return, and the format characters that are not controls', () => {
    const text = 'a\tb\nc\r\nd\u200b\u00ade';
    expect(parseBookInput({ ...valid, title: text, author: text, isbn: text })).toMatchObject({
      title: text,
      author: text,
      isbn: text,
    });
  });
});

describe('ISBNs that normalise to nothing', () => {
  it.each(['-', '---', ' - - ', '\u00a0-\u3000', '-\t-'])('refuse %j with the spec’s "ISBN is required"', (isbn) => {
    expect(errorsOf(() => parseBookInput({ ...valid, isbn }))).toEqual({ isbn: 'ISBN is required' });
    expect(errorsOf(() => parseBookPatch({ isbn }))).toEqual({ isbn: 'ISBN is required' });
    expect(normalizeIsbn(isbn)).toBe('');
  });

  it('take one character normalising keeps', () => {
    expect(parseBookInput({ ...valid, isbn: '-X-' }).isbn).toBe('-X-');
    expect(normalizeIsbn('-X-')).toBe('X');
  });

  it('a hyphen is no blank in the other fields', () => {
    expect(parseBookInput({ ...valid, title: '-', author: '-' })).toMatchObject({ title: '-', author: '-' });
  });
});

describe('book patch (PATCH bodies)', () => {
  it('keeps only supplied known fields', () => {
    expect(parseBookPatch({ title: 'New', colour: 'blue' })).toEqual({ title: 'New' });
    expect(parseBookPatch({})).toEqual({});
  });

  it('validates a supplied field as on create, null counting as blank', () => {
    expect(errorsOf(() => parseBookPatch({ title: null, author: ' ', isbn: 5, publicationYear: 10 }))).toEqual({
      title: 'Title is required',
      author: 'Author is required',
      isbn: 'ISBN must be a string',
      publicationYear: 'Invalid publication year',
    });
  });

  it.each([[null], [[]], ['x']])('rejects a body of %j as not an object', (body) => {
    expect(errorsOf(() => parseBookPatch(body))).toEqual({ body: 'Request body must be a JSON object' });
  });
});

describe('path id', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    ['9007199254740991', 9007199254740991],
  ])('accepts %s', (raw, id) => expect(parseBookId(raw)).toBe(id));

  it.each([
    ['0'],
    ['-1'],
    ['01'],
    ['1.5'],
    ['abc'],
    ['1e3'],
    ['9007199254740992'],
    ['99999999999999999'],
    [''],
    [undefined],
  ])('rejects %j', (raw) =>
    expect(errorsOf(() => parseBookId(raw))).toEqual({ id: 'Book id must be a positive integer' }),
  );
});

describe('list filter', () => {
  it('reads author and year, ignoring unknown parameters', () => {
    expect(parseBookFilter({ author: 'Frank Herbert', year: '1965', sort: 'x' })).toEqual({
      author: 'Frank Herbert',
      year: 1965,
    });
    expect(parseBookFilter(null)).toEqual({});
  });

  it.each([['abc'], ['19.5'], [''], ['1e3']])('rejects year=%j', (year) => {
    expect(errorsOf(() => parseBookFilter({ year }))).toEqual({ year: 'Year must be an integer' });
  });
});

describe('normalisation', () => {
  it('compares ISBNs without spaces and hyphens, upper-cased', () => {
    expect(normalizeIsbn('978-0-13-468599-1')).toBe(normalizeIsbn('9780134685991'));
    expect(normalizeIsbn('0-8044-2957-x')).toBe('080442957X');
    expect(normalizeIsbn('978 0 13')).toBe('978013');
  });

  it('compares authors ignoring case after NFC normalisation, without trimming', () => {
    expect(normalizeAuthor('ÉMILE Zola')).toBe(normalizeAuthor('émile zola'));
    expect(normalizeAuthor('E\u0301mile')).toBe(normalizeAuthor('\u00c9mile'));
    expect(normalizeAuthor(' Zola')).not.toBe(normalizeAuthor('Zola'));
  });

  it('folds authors to lower case, as the design fixes it (upper-casing would make ß equal SS)', () => {
    expect(normalizeAuthor('ÉMILE Zola')).toBe('émile zola');
    expect(normalizeAuthor('Strauß')).not.toBe(normalizeAuthor('STRAUSS'));
  });
});
