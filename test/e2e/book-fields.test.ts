import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOK_SCHEMA } from '../../shared/books/book-schema';
import { fieldConstraints, fieldValues } from '../support/book-test-schema';
import { demoClient } from '../support/demo-client';
import { startLocalApi } from '../support/local-api';

/**
 * Every field of the Book schema through `npm start`'s routes, with values derived from the field's
 * own constraints: a field added to the schema is created, read, listed, patched and removed (when
 * optional) here without a word in this file.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

const { newBook, call } = demoClient(() => api.baseUrl, 'fields', { title: 'T', author: 'A', publicationYear: 2001 });
const valuesOf = (field: string) => fieldValues(fieldConstraints(BOOK_SCHEMA, field));
/** A book with every field at its first valid value (a unique ISBN kept unique). */
const fullBook = (): Record<string, unknown> => {
  const book = newBook();
  const derived = Object.fromEntries(BOOK_SCHEMA.inputFields.map((field) => [field, valuesOf(field).valid[0]]));
  return { ...derived, isbn: `${book.isbn}-${String(valuesOf('isbn').valid[1])}` };
};

describe.each(BOOK_SCHEMA.inputFields.map((field) => [field]))('the Book field %s over HTTP', (field) => {
  it('is stored on POST, read back, listed, changed by PATCH and refused when invalid', async () => {
    const book = fullBook();
    const created = await call('POST', '/api/books', book);
    expect(created.status).toBe(201);
    expect(created.json).toHaveProperty(field, book[field]);
    const path = `/api/books/${created.json.id}`;
    expect((await call('GET', path)).json).toHaveProperty(field, book[field]);
    const listed = (await call('GET', '/api/books')).json.find(({ id }: { id: number }) => id === created.json.id);
    expect(listed).toHaveProperty(field, book[field]);
    if (field !== 'isbn') {
      const [, other] = valuesOf(field).valid;
      expect((await call('PATCH', path, { [field]: other })).json).toHaveProperty(field, other);
    }
    for (const invalid of valuesOf(field).invalid) {
      const refused = await call('PATCH', path, { [field]: invalid });
      expect(refused.status, String(invalid)).toBe(400);
      expect(refused.json.errors).toHaveProperty(field);
    }
    const removed = await call('PATCH', path, { [field]: null });
    if (BOOK_SCHEMA.optionalFields.has(field)) {
      expect(removed.status).toBe(200);
      expect(removed.json).not.toHaveProperty(field);
      expect((await call('GET', path)).json).not.toHaveProperty(field);
      const { [field]: _, ...without } = fullBook();
      const put = await call('PUT', path, { ...without, [field]: book[field] });
      expect(put.json).toHaveProperty(field);
      expect((await call('PUT', path, without)).json).not.toHaveProperty(field);
    } else {
      expect(removed.status).toBe(400);
    }
  });
});
