import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoClient } from '../support/demo-client';
import { startLocalApi } from '../support/local-api';

let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const { newBook, call } = demoClient(() => api.baseUrl, 'e2e', {
  title: 'The Dispossessed',
  author: 'Ursula K. Le Guin',
  publicationYear: 1974,
});

const create = async (extra: Record<string, unknown> = {}) => {
  const response = await call('POST', '/api/books', newBook(extra));
  expect(response.status).toBe(201);
  return response.json;
};

describe('POST /api/books', () => {
  it('creates a book: 201, the book with its id, Location = request URL + /id', async () => {
    const response = await call('POST', '/api/books', newBook({ isbn: 'post-1', id: 12345, createdAt: 'ignored' }));
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    const book = response.json;
    expect(book).toEqual({
      id: expect.any(Number),
      title: 'The Dispossessed',
      author: 'Ursula K. Le Guin',
      isbn: 'post-1',
      publicationYear: 1974,
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: book.createdAt,
    });
    expect(book.id).not.toBe(12345);
    expect(response.headers.get('location')).toBe(`${api.baseUrl}/api/books/${book.id}`);
  });

  it('answers 400 with every violation message', async () => {
    const response = await call('POST', '/api/books', { title: ' ', isbn: '', publicationYear: 999 });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      timestamp: expect.stringMatching(ISO_MS),
      status: 400,
      errors: {
        title: 'Title is required',
        author: 'Author is required',
        isbn: 'ISBN is required',
        publicationYear: 'Invalid publication year',
      },
    });
  });

  it('reports a missing publication year', async () => {
    const { publicationYear: _, ...rest } = newBook();
    const response = await call('POST', '/api/books', rest);
    expect(response.json.errors).toEqual({ publicationYear: 'Publication year is required' });
  });

  it('answers 409 with no body for a taken ISBN, also in another spelling', async () => {
    await create({ isbn: '978-0-13-468599-1' });
    for (const isbn of ['978-0-13-468599-1', '9780134685991', '978 0134 685991']) {
      const response = await call('POST', '/api/books', newBook({ isbn }));
      expect(response.status).toBe(409);
      expect(response.text).toBe('');
    }
  });

  it('validates before checking for a duplicate ISBN', async () => {
    await create({ isbn: 'order-1' });
    const response = await call('POST', '/api/books', newBook({ isbn: 'order-1', title: '' }));
    expect(response.status).toBe(400);
  });

  it.each([
    ['malformed JSON', '{"title": ', { body: 'Request body must be valid JSON' }],
    ['an array', '[]', { body: 'Request body must be a JSON object' }],
    ['a JSON string', '"book"', { body: 'Request body must be a JSON object' }],
    ['null', 'null', { body: 'Request body must be a JSON object' }],
  ])('answers 400 for %s', async (_, body, errors) => {
    const response = await call('POST', '/api/books', body);
    expect(response.status).toBe(400);
    expect(response.json.errors).toEqual(errors);
  });

  it('answers 400 for a request without a body', async () => {
    const response = await call('POST', '/api/books');
    expect(response.status).toBe(400);
    expect(response.json.errors).toEqual({ body: 'Request body must be a JSON object' });
  });

  it('accepts a charset on the JSON content type, and answers 415 for another type', async () => {
    const ok = await call('POST', '/api/books', newBook(), { 'content-type': 'application/json; charset=utf-8' });
    expect(ok.status).toBe(201);
    const response = await call('POST', '/api/books', JSON.stringify(newBook()), { 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
    expect(response.json).toEqual({
      timestamp: expect.stringMatching(ISO_MS),
      status: 415,
      message: expect.any(String),
    });
  });

  it('answers 413 for a body over 64 KiB', async () => {
    const response = await call('POST', '/api/books', newBook({ title: 'x'.repeat(70_000) }));
    expect(response.status).toBe(413);
    expect(response.json).toEqual({
      timestamp: expect.stringMatching(ISO_MS),
      status: 413,
      message: expect.any(String),
    });
  });
});

describe('GET /api/books/{id}', () => {
  it('returns the book', async () => {
    const book = await create();
    const response = await call('GET', `/api/books/${book.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.json).toEqual(book);
  });

  it('answers 404 with no body for an unknown id', async () => {
    const response = await call('GET', '/api/books/987654321');
    expect(response.status).toBe(404);
    expect(response.text).toBe('');
  });

  it.each(['abc', '0', '-3', '1.5', '9007199254740992', '%zz'])('answers 400 with errors.id for id %s', async (id) => {
    const response = await call('GET', `/api/books/${id}`);
    expect(response.status).toBe(400);
    expect(response.json.errors).toEqual({ id: 'Book id must be a positive integer' });
  });
});

describe('GET /api/books', () => {
  it('lists in ascending id order and filters by author (ignoring case) and year, combined with AND', async () => {
    const author = `Émile Zola ${Date.now()}`;
    const a = await create({ author, publicationYear: 1871 });
    const b = await create({ author: author.toUpperCase(), publicationYear: 1885 });
    const c = await create({ author, publicationYear: 1885 });
    await create({ author: `${author} Jr`, publicationYear: 1885 });

    const all = await call('GET', '/api/books');
    expect(all.status).toBe(200);
    const ids = all.json.map((book: { id: number }) => book.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));

    const byAuthor = await call('GET', `/api/books?author=${encodeURIComponent(author.toLowerCase())}`);
    expect(byAuthor.json.map((book: { id: number }) => book.id)).toEqual([a.id, b.id, c.id]);

    const both = await call('GET', `/api/books?author=${encodeURIComponent(author)}&year=1885&unknown=1`);
    expect(both.json.map((book: { id: number }) => book.id)).toEqual([b.id, c.id]);
  });

  it('matches non-ASCII authors in composed and decomposed form', async () => {
    const book = await create({ author: `\u00c9douard ${Date.now()}` });
    const decomposed = `E\u0301DOUARD ${book.author.split(' ')[1]}`;
    const response = await call('GET', `/api/books?author=${encodeURIComponent(decomposed)}`);
    expect(response.json).toEqual([book]);
  });

  it('returns an empty array when nothing matches', async () => {
    const response = await call('GET', '/api/books?author=nobody-at-all&year=1000');
    expect(response.status).toBe(200);
    expect(response.json).toEqual([]);
  });

  it('filters by year alone', async () => {
    const book = await create({ publicationYear: 1111 });
    const response = await call('GET', '/api/books?year=1111');
    expect(response.json).toEqual([book]);
  });

  it('answers 400 with errors.year for a year that is not an integer', async () => {
    const response = await call('GET', '/api/books?year=nineteen');
    expect(response.status).toBe(400);
    expect(response.json.errors).toEqual({ year: 'Year must be an integer' });
  });
});

describe('PUT /api/books/{id}', () => {
  it('replaces the record, keeping id and createdAt and refreshing updatedAt', async () => {
    const book = await create();
    await new Promise((done) => setTimeout(done, 5));
    const response = await call('PUT', `/api/books/${book.id}`, {
      ...newBook({ title: 'Replaced' }),
      id: 1,
      createdAt: 'x',
    });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ id: book.id, title: 'Replaced', createdAt: book.createdAt });
    expect(response.json.updatedAt > book.updatedAt).toBe(true);
    expect((await call('GET', `/api/books/${book.id}`)).json).toEqual(response.json);
  });

  it('answers 404 for a missing book and does not create it', async () => {
    const response = await call('PUT', '/api/books/55555555', newBook());
    expect(response.status).toBe(404);
    expect(response.text).toBe('');
    expect((await call('GET', '/api/books/55555555')).status).toBe(404);
  });

  it('validates the body as POST does', async () => {
    const book = await create();
    const response = await call('PUT', `/api/books/${book.id}`, { title: 'Only a title' });
    expect(response.status).toBe(400);
    expect(Object.keys(response.json.errors).sort()).toEqual(['author', 'isbn', 'publicationYear']);
  });

  it('keeps ISBNs unique: 409 for another book’s ISBN, fine for its own', async () => {
    const a = await create();
    const b = await create();
    const taken = await call('PUT', `/api/books/${b.id}`, newBook({ isbn: a.isbn.toUpperCase() }));
    expect(taken.status).toBe(409);
    expect(taken.text).toBe('');
    const own = await call('PUT', `/api/books/${b.id}`, newBook({ isbn: b.isbn, title: 'Same ISBN' }));
    expect(own.status).toBe(200);
  });

  it('frees the old ISBN when it changes', async () => {
    const book = await create();
    expect((await call('PUT', `/api/books/${book.id}`, newBook())).status).toBe(200);
    expect((await call('POST', '/api/books', newBook({ isbn: book.isbn }))).status).toBe(201);
  });
});

describe('PATCH /api/books/{id}', () => {
  it('changes only supplied fields, ignores unknown keys, refreshes updatedAt', async () => {
    const book = await create();
    await new Promise((done) => setTimeout(done, 5));
    const response = await call('PATCH', `/api/books/${book.id}`, { publicationYear: 1975, colour: 'red', id: 3 });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ ...book, publicationYear: 1975, updatedAt: expect.stringMatching(ISO_MS) });
    expect(response.json.updatedAt > book.updatedAt).toBe(true);
  });

  it('answers {} with the book unchanged', async () => {
    const book = await create();
    const response = await call('PATCH', `/api/books/${book.id}`, {});
    expect(response.status).toBe(200);
    expect(response.json).toEqual(book);
  });

  it('validates supplied fields: blank, null and wrong types', async () => {
    const book = await create();
    const response = await call('PATCH', `/api/books/${book.id}`, {
      title: null,
      author: ' ',
      isbn: 7,
      publicationYear: '1999',
    });
    expect(response.status).toBe(400);
    expect(response.json.errors).toEqual({
      title: 'Title is required',
      author: 'Author is required',
      isbn: 'ISBN must be a string',
      publicationYear: 'Publication year must be an integer',
    });
    expect((await call('GET', `/api/books/${book.id}`)).json).toEqual(book);
  });

  it('answers 404 for a missing book and 409 for another book’s ISBN', async () => {
    expect((await call('PATCH', '/api/books/55555556', { title: 'x' })).status).toBe(404);
    const a = await create();
    const b = await create();
    const response = await call('PATCH', `/api/books/${b.id}`, { isbn: a.isbn });
    expect(response.status).toBe(409);
    expect(response.text).toBe('');
  });
});

describe('DELETE /api/books/{id}', () => {
  it('answers 204 with no body, then 404 for reads and a second delete, and frees the ISBN', async () => {
    const book = await create();
    const response = await call('DELETE', `/api/books/${book.id}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await call('GET', `/api/books/${book.id}`)).status).toBe(404);
    expect((await call('DELETE', `/api/books/${book.id}`)).status).toBe(404);
    expect((await call('POST', '/api/books', newBook({ isbn: book.isbn }))).status).toBe(201);
  });
});

describe('gateway rules', () => {
  // A known path with a method it does not take is 405, and `/` and `/api` point to the reference
  // (test/e2e/http-methods.test.ts).
  it.each([
    ['GET', '/api/nothing'],
    ['GET', '/api/books/1/extra'],
    ['GET', '/nothing'],
  ])('answers 404 with no body for %s %s', async (method, path) => {
    const response = await call(method, path);
    expect(response.status).toBe(404);
    expect(response.text).toBe('');
  });
});
