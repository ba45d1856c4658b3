import { describe, expect, it } from 'vitest';
import { BookInputSchema } from '../../shared/books/book-schema';
import { BookService } from '../../shared/books/book-service';
import { requestFingerprint } from '../../shared/books/idempotency';
import type { BookChange } from '../../shared/books/ports';
import { parseBookInput } from '../../shared/books/schemas';
import type { BookInput } from '../../shared/books/types';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import { MemoryBookStore } from '../support/memory-book-store';

/**
 * Every field of the Book schema, read from the valibot object itself, so a field added there is
 * checked here without a word in this file: the OpenAPI document, the fingerprint and PUT follow it.
 */
const entries = Object.entries(BookInputSchema.entries) as [keyof BookInput, { type: string }][];
const isOptional = (schema: { type: string }) => schema.type === 'exact_optional';

type ObjectSchema = { required?: string[]; properties: Record<string, { type?: string }> };
const { components } = buildOpenApiDocument({ publicReads: false }) as unknown as {
  components: { schemas: Record<'Book' | 'BookInput' | 'BookPatch', ObjectSchema> };
};

/** Two different valid values of a field, chosen from its documented type. */
const samples = (field: keyof BookInput): [unknown, unknown] =>
  components.schemas.BookInput.properties[field]?.type === 'integer' ? [2001, 2002] : ['First', 'Second'];

const fullBook = (): BookInput =>
  parseBookInput(Object.fromEntries(entries.map(([field]) => [field, samples(field)[0]])));

describe('a Book field is one change: everything derives from the schema', () => {
  it('has fields to check', () => {
    expect(entries.map(([field]) => field)).toEqual(expect.arrayContaining(['title', 'author', 'isbn']));
  });

  it.each(entries)('%s: in the OpenAPI document, required exactly when the schema requires it', (field, schema) => {
    for (const name of ['Book', 'BookInput', 'BookPatch'] as const) {
      expect(Object.keys(components.schemas[name].properties), name).toContain(field);
    }
    expect(components.schemas.BookPatch.required ?? []).not.toContain(field);
    for (const name of ['Book', 'BookInput'] as const) {
      expect((components.schemas[name].required ?? []).includes(field), name).toBe(!isOptional(schema));
    }
  });

  it('documents a Book with exactly the schema’s fields plus id and timestamps', () => {
    expect(Object.keys(components.schemas.Book.properties)).toEqual([
      'id',
      ...entries.map(([field]) => field),
      'createdAt',
      'updatedAt',
    ]);
  });

  it.each(entries)('%s: counts in the Idempotency-Key fingerprint', (field, schema) => {
    const book = fullBook();
    const other = parseBookInput({ ...book, [field]: samples(field)[1] });
    expect(requestFingerprint(other)).not.toBe(requestFingerprint(book));
    if (isOptional(schema)) {
      const { [field]: _, ...without } = book;
      expect(requestFingerprint(parseBookInput(without))).not.toBe(requestFingerprint(book));
    }
  });

  it.each(entries)('%s: a PUT that omits it removes it when optional (the store is told to)', async (field, schema) => {
    const changes: BookChange[] = [];
    const store = new MemoryBookStore();
    const service = new BookService(store);
    const { book } = await service.create(fullBook());
    const update = store.update.bind(store);
    store.update = (id, change, condition) => {
      changes.push(change);
      return update(id, change, condition);
    };
    const { [field]: _, ...without } = fullBook();
    if (!isOptional(schema)) {
      expect(() => parseBookInput(without)).toThrow();
      return;
    }
    const replaced = await service.replace(book.id, parseBookInput(without));
    expect(changes[0]).toHaveProperty(field, undefined);
    expect(replaced.book[field]).toBeUndefined();
  });
});
