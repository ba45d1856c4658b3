import { describe, expect, it } from 'vitest';
import { BOOK_SCHEMA, BookInputSchema, type BookSchema, bookSchemaOf } from '../../shared/books/book-schema';
import { BookService } from '../../shared/books/book-service';
import { ValidationError } from '../../shared/books/errors';
import { optionalTextField } from '../../shared/books/field-rules';
import { requestFingerprint } from '../../shared/books/idempotency';
import { largestBook } from '../../shared/books/list-limits';
import type { BookChange } from '../../shared/books/ports';
import { parseBookInput, parseBookPatch } from '../../shared/books/schemas';
import type { BookInput } from '../../shared/books/types';
import { schemas } from '../../shared/openapi/schemas';
import { fieldConstraints, fieldValues, TEST_BOOK_SCHEMA } from '../support/book-test-schema';
import { MemoryBookStore } from '../support/memory-book-store';

/**
 * Every field of a Book schema, read from the schema itself, so a field added there is checked here
 * without a word in this file. They run over the service's schema and over a test schema that has
 * the kinds of field the service has none of yet (optional text, enumerated).
 */
const SCHEMAS: [string, BookSchema][] = [
  ['the service schema', BOOK_SCHEMA],
  ['the test schema', TEST_BOOK_SCHEMA],
];

const valuesOf = (schema: BookSchema, field: string) => fieldValues(fieldConstraints(schema, field));
const fullBook = (schema: BookSchema, which: 0 | 1 = 0): BookInput =>
  parseBookInput(
    Object.fromEntries(schema.inputFields.map((field) => [field, valuesOf(schema, field).valid[which]])),
    schema,
  );
const without = (book: BookInput, field: string): BookInput => {
  const { [field]: _, ...rest } = book as Record<string, unknown>;
  return rest as BookInput;
};
const field = (schema: BookSchema) => schema.inputFields.map((name) => [name] as const);

/** A service over a memory store that records every change the store is told to make. */
const recordingService = (schema: BookSchema) => {
  const changes: BookChange[] = [];
  const store = new MemoryBookStore();
  const update = store.update.bind(store);
  store.update = (id, change, condition) => {
    changes.push(change);
    return update(id, change, condition);
  };
  return { changes, service: new BookService(store, undefined, schema) };
};

describe('the test schema has the kinds of field the generic tests must cover', () => {
  it('an optional text field, a required enumerated one and an optional enumerated one', () => {
    expect([...TEST_BOOK_SCHEMA.optionalFields]).toEqual(['subtitle', 'format']);
    expect(fieldConstraints(TEST_BOOK_SCHEMA, 'language').enum).toEqual(['en', 'de', 'pt-BR']);
  });
});

describe.each(SCHEMAS)('a Book field is one change: everything derives from %s', (_, schema) => {
  const optional = field(schema).filter(([name]) => schema.optionalFields.has(name));
  const required = field(schema).filter(([name]) => !schema.optionalFields.has(name));
  const { BookInput, BookPatch, Book } = schemas(schema) as unknown as Record<
    'Book' | 'BookInput' | 'BookPatch',
    { required?: string[]; properties: Record<string, unknown> }
  >;

  it.each(field(schema))('%s: in the OpenAPI document, required exactly when the schema requires it', (name) => {
    for (const documented of [Book, BookInput, BookPatch]) expect(Object.keys(documented.properties)).toContain(name);
    expect(BookPatch.required ?? []).not.toContain(name);
    for (const documented of [Book, BookInput]) {
      expect((documented.required ?? []).includes(name)).toBe(!schema.optionalFields.has(name));
    }
  });

  it('documents a Book with exactly the schema’s fields plus id and timestamps', () => {
    expect(Object.keys(Book.properties)).toEqual(['id', ...schema.inputFields, 'createdAt', 'updatedAt']);
  });

  it.each(field(schema))('%s: accepts the values its constraints allow and refuses the others', (name) => {
    const { valid, invalid } = valuesOf(schema, name);
    for (const value of valid)
      expect(parseBookInput({ ...fullBook(schema), [name]: value }, schema)).toHaveProperty(name, value);
    for (const value of invalid) {
      expect(() => parseBookInput({ ...fullBook(schema), [name]: value }, schema), String(value)).toThrow(
        ValidationError,
      );
      expect(() => parseBookPatch({ [name]: value }, schema), String(value)).toThrow(ValidationError);
    }
  });

  it.each(field(schema))('%s: counts in the Idempotency-Key fingerprint', (name) => {
    const book = fullBook(schema);
    const other = parseBookInput({ ...book, [name]: valuesOf(schema, name).valid[1] }, schema);
    expect(requestFingerprint(other, schema)).not.toBe(requestFingerprint(book, schema));
    if (schema.optionalFields.has(name)) {
      expect(requestFingerprint(without(book, name), schema)).not.toBe(requestFingerprint(book, schema));
    }
  });

  it.each(required)('%s: a PUT or POST without it, and a PATCH that sends it as null, are refused', (name) => {
    expect(() => parseBookInput(without(fullBook(schema), name), schema)).toThrow(ValidationError);
    expect(() => parseBookPatch({ [name]: null }, schema)).toThrow(ValidationError);
  });

  it.each(optional)('%s: a PUT that omits it removes it (the store is told to)', async (name) => {
    const { changes, service } = recordingService(schema);
    const { book } = await service.create(fullBook(schema));
    expect(book).toHaveProperty(name);
    const replaced = await service.replace(book.id, without(fullBook(schema, 1), name));
    expect(changes[0]).toHaveProperty(name, undefined);
    expect(replaced.book).not.toHaveProperty(name);
  });

  it.each(optional)('%s: a PATCH that sends null removes it; blank stays refused', async (name) => {
    const { changes, service } = recordingService(schema);
    const { book } = await service.create(fullBook(schema));
    const patched = await service.patch(book.id, parseBookPatch({ [name]: null }, schema));
    expect(changes[0]).toHaveProperty(name, undefined);
    expect(patched.book).not.toHaveProperty(name);
    expect(() => parseBookPatch({ [name]: ' ' }, schema)).toThrow(ValidationError);
  });

  it('sizes the largest listed book from every field, allowed values included', () => {
    const largest = largestBook(schema) as unknown as Record<string, unknown>;
    expect(Object.keys(largest)).toEqual(['id', ...schema.inputFields, 'createdAt', 'updatedAt']);
    expect(() => parseBookInput(largest, schema)).not.toThrow();
    for (const name of schema.inputFields) {
      const { enum: allowed, maxLength } = fieldConstraints(schema, name);
      const longest = allowed ? Math.max(...allowed.map((value) => [...value].length)) : maxLength;
      if (longest !== undefined) expect([...String(largest[name])].length).toBeGreaterThanOrEqual(longest);
      if (allowed) expect(allowed).toContain(largest[name]);
    }
  });
});

describe('the Idempotency-Key fingerprint across a deploy that adds an optional field', () => {
  it('is unchanged for a request that does not carry the new field', () => {
    const withSubtitle = bookSchemaOf({ ...BookInputSchema.entries, subtitle: optionalTextField('Subtitle', 200) });
    const before = fullBook(BOOK_SCHEMA);
    const after = parseBookInput(before, withSubtitle);
    expect(requestFingerprint(after, withSubtitle)).toBe(requestFingerprint(before, BOOK_SCHEMA));
    expect(requestFingerprint({ ...after, subtitle: 'b' } as BookInput, withSubtitle)).not.toBe(
      requestFingerprint(before, BOOK_SCHEMA),
    );
  });
});
