import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { BookInputSchema, BookPatchSchema } from '../../shared/books/book-schema';
import { codePointLength, positiveIntegerPattern, withJsonSchema } from '../../shared/books/documented-checks';
import { ValidationError } from '../../shared/books/errors';
import { BookIdSchema, BookQuerySchema, parseBookId, parseBookInput, parseBookQuery } from '../../shared/books/schemas';
import { parseIdempotencyKey } from '../../shared/http/idempotency-key';
import { parseTagList } from '../../shared/http/preconditions';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import { undocumentedChecks } from '../../shared/openapi/json-schema';

const doc = buildOpenApiDocument({ publicReads: false }) as unknown as {
  components: { schemas: Record<string, { properties: Record<string, { pattern: string; maxLength: number }> }> };
  paths: Record<
    string,
    Record<string, { parameters?: { name: string; schema: { pattern?: string; minLength?: number } }[] }>
  >;
};
const bookInput = doc.components.schemas.BookInput?.properties ?? {};
const queryParameter = (name: string) =>
  doc.paths['/api/books']?.get?.parameters?.find((parameter) => parameter.name === name)?.schema ?? {};
const idParameter = doc.paths['/api/books/{id}']?.get?.parameters?.find((parameter) => parameter.name === 'id')?.schema;
/** JSON Schema patterns are unanchored and read with the `u` flag's code-point semantics. */
const matches = (pattern: string | undefined, text: string) => new RegExp(pattern ?? '', 'u').test(text);
const valid = { title: 'T', author: 'A', isbn: 'I', publicationYear: 2000 };

describe('every valibot check has a JSON Schema counterpart', () => {
  it('finds none missing in the schemas the document is made of', () => {
    for (const schema of [BookInputSchema, BookPatchSchema, BookIdSchema, BookQuerySchema]) {
      expect(undocumentedChecks(schema)).toEqual([]);
    }
  });

  it('reports a check() and a bound after a transform that the converter would drop in silence', () => {
    const loose = v.object({
      name: v.pipe(
        v.string(),
        v.check((text) => text !== 'x'),
      ),
      size: v.exactOptional(v.pipe(v.string(), v.transform(Number), v.maxValue(10))),
    });
    expect(undocumentedChecks(loose)).toEqual(['$.name: check', '$.size: max_value']);
  });

  it('accepts a check once its counterpart is registered', () => {
    const named = v.pipe(
      v.string(),
      withJsonSchema(
        v.check((text: string) => text !== ''),
        { minLength: 1 },
      ),
    );
    expect(undocumentedChecks(named)).toEqual([]);
  });
});

describe('the document says what the server accepts', () => {
  it('counts lengths in code points, as JSON Schema does', () => {
    const emoji = '📚'.repeat(500);
    expect(codePointLength(emoji)).toBe(500);
    expect(bookInput.title?.maxLength).toBe(500);
    expect(parseBookInput({ ...valid, title: emoji }).title).toBe(emoji);
    expect(() => parseBookInput({ ...valid, title: `${emoji}x` })).toThrow();
  });

  it.each(['', ' ', '\t\n', '\u00a0', '\u3000 ', '\ufeff', '\u2028'])(
    'refuses the blank title %j, and the pattern refuses it too',
    (blank) => {
      expect(matches(bookInput.title?.pattern, blank)).toBe(false);
      expect(() => parseBookInput({ ...valid, title: blank })).toThrow();
    },
  );

  it.each(['x', ' x ', '\u200b', 'a\tb\r\nc', '-'])('accepts %j, and the pattern accepts it too', (text) => {
    expect(matches(bookInput.title?.pattern, text)).toBe(true);
    expect(parseBookInput({ ...valid, title: text }).title).toBe(text);
  });

  it.each(['\u0000', 'a\u001cb', '\u0085', 'x\u007f', '\ufffd', 'x\ufffd'])(
    'refuses the title %j (a control character or U+FFFD), and the pattern refuses it too',
    (text) => {
      expect(matches(bookInput.title?.pattern, text)).toBe(false);
      expect(() => parseBookInput({ ...valid, title: text })).toThrow();
    },
  );

  it.each(['-', ' - ', '-\u3000-'])(
    'refuses the ISBN %j (nothing left once normalised), and the pattern refuses it too',
    (isbn) => {
      expect(matches(bookInput.isbn?.pattern, isbn)).toBe(false);
      expect(() => parseBookInput({ ...valid, isbn })).toThrow();
      expect(matches(bookInput.isbn?.pattern, '-1-')).toBe(true);
    },
  );

  it('refuses U+FFFD in the author filter, and the parameter’s pattern refuses it too', () => {
    expect(matches(queryParameter('author').pattern, 'x\ufffd')).toBe(false);
    expect(matches(queryParameter('author').pattern, 'Émile')).toBe(true);
    expect(() => parseBookQuery({ author: 'x\ufffd' })).toThrow();
  });

  it.each([
    ['1', true],
    ['1000', true],
    ['999', true],
    ['0', false],
    ['1001', false],
    ['9999', false],
    ['01', false],
  ])('limit=%s is valid: %s, in both', (limit, ok) => {
    expect(matches(queryParameter('limit').pattern, limit)).toBe(ok);
    if (ok) expect(parseBookQuery({ limit }).page?.limit).toBe(Number(limit));
    else expect(() => parseBookQuery({ limit })).toThrow();
  });

  it.each([
    ['9007199254740991', true],
    ['1', true],
    ['9007199254740992', false],
    ['9999999999999999', false],
    ['0', false],
  ])('id %s is valid: %s, in both', (id, ok) => {
    expect(matches(idParameter?.pattern, id)).toBe(ok);
    if (ok) expect(parseBookId(id)).toBe(Number(id));
    else expect(() => parseBookId(id)).toThrow();
  });

  it.each([
    ['2020', true],
    ['-9007199254740991', true],
    ['+0042', true],
    ['9007199254740992', false],
    ['20x', false],
  ])('year=%s is valid: %s, in both', (year, ok) => {
    expect(matches(queryParameter('year').pattern, year)).toBe(ok);
    if (ok) expect(parseBookQuery({ year }).filter.year).toBe(Number(year));
    else expect(() => parseBookQuery({ year })).toThrow();
  });

  it.each([
    ['42', true],
    ['9007199254740991', true],
    ['', false],
    ['0', false],
    ['042', false],
    ['9007199254740992', false],
  ])('cursor=%j is valid: %s, in both', (cursor, ok) => {
    expect(matches(queryParameter('cursor').pattern, cursor)).toBe(ok);
    if (ok) expect(parseBookQuery({ cursor }).page?.after).toBe(Number(cursor));
    else expect(() => parseBookQuery({ cursor })).toThrow();
  });

  const headerParameter = (method: string, path: string, name: string) =>
    doc.paths[path]?.[method]?.parameters?.find((parameter) => parameter.name === name)?.schema;

  it('documents If-Match and If-None-Match as any text, as the handlers read them (no 400 for any value)', () => {
    for (const [method, name] of [
      ['put', 'If-Match'],
      ['patch', 'If-Match'],
      ['delete', 'If-Match'],
      ['get', 'If-None-Match'],
      ['put', 'If-None-Match'],
      ['patch', 'If-None-Match'],
      ['delete', 'If-None-Match'],
    ] as const) {
      expect(headerParameter(method, '/api/books/{id}', name), `${method} ${name}`).toStrictEqual({ type: 'string' });
    }
    for (const value of ['*', '"a"', 'W/"a", "b"', 'abc', '', '"', '*, "a"']) expect(parseTagList(value)).toBeDefined();
  });

  it.each([
    ['"8e03978e-40d5-43e8-bc93-6894a57f9324"', true],
    ['8e03978e-40d5-43e8-bc93-6894a57f9324', true],
    ['"with space"', true],
    [`"${'k'.repeat(255)}"`, true],
    [`"${'k'.repeat(256)}"`, false],
    ['""', false],
    ['', false],
    ['bare space', false],
    ['"a\\"b"', false],
    ['"unterminated', false],
    ['"é"', false],
  ])('Idempotency-Key %j is valid: %s, in both', (value, ok) => {
    expect(matches(headerParameter('post', '/api/books', 'Idempotency-Key')?.pattern, value)).toBe(ok);
    if (ok) expect(parseIdempotencyKey(value)).toBeDefined();
    else expect(() => parseIdempotencyKey(value)).toThrow(ValidationError);
  });

  it('writes bounds up to 2^53-1 digit by digit', () => {
    const pattern = new RegExp(`^${positiveIntegerPattern(1000)}$`);
    for (let n = 0; n <= 3000; n++) expect(pattern.test(String(n))).toBe(n >= 1 && n <= 1000);
  });
});
