import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/** The operator's cap on an unpaged list, below the 23 books this file creates. */
const LIST_MAX_BOOKS = 20;

let api: Awaited<ReturnType<typeof startLocalApi>>;
const created: { id: number; author: string; publicationYear: number }[] = [];

beforeAll(async () => {
  api = await startLocalApi({ env: { LIST_MAX_BOOKS: String(LIST_MAX_BOOKS) } });
  for (let i = 0; i < 23; i++) {
    const response = await get('/api/books', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        title: `Paged ${i}`,
        author: i % 3 === 0 ? 'Page Author' : `Other ${i}`,
        isbn: `page-${i}`,
        publicationYear: i % 2 ? 1999 : 2001,
      }),
    });
    expect(response.status).toBe(201);
    created.push((await response.json()) as (typeof created)[number]);
  }
}, 60_000);
afterAll(() => api.close());

const get = (path: string, init: RequestInit = {}) =>
  fetch(path.startsWith('http') ? path : `${api.baseUrl}${path}`, {
    ...init,
    headers: { authorization: BASIC_DEMO, ...(init.headers as Record<string, string>) },
  });

const nextLink = (response: Response) => /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];

/** Follows `Link: rel="next"` from `path` to the end; the ids of every page. */
const walk = async (path: string) => {
  const pages: number[][] = [];
  let url: string | undefined = path;
  while (url) {
    const response = await get(url);
    expect(response.status).toBe(200);
    pages.push(((await response.json()) as { id: number }[]).map((b) => b.id));
    url = nextLink(response);
  }
  return pages;
};

describe('GET /api/books with limit and cursor', () => {
  it('pages through every book once, in id order, each next link keeping the query', async () => {
    const pages = await walk('/api/books?limit=5');
    expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
    expect(pages.flat()).toEqual(created.map((b) => b.id));
  });

  it('pages within the author and year filters, using their indexes', async () => {
    const byAuthor = created.filter((b) => b.author === 'Page Author').map((b) => b.id);
    expect((await walk('/api/books?author=page%20author&limit=3')).flat()).toEqual(byAuthor);
    const byYear = created.filter((b) => b.publicationYear === 1999).map((b) => b.id);
    expect((await walk('/api/books?year=1999&limit=4')).flat()).toEqual(byYear);
    const both = created.filter((b) => b.author === 'Page Author' && b.publicationYear === 2001).map((b) => b.id);
    expect((await walk('/api/books?author=Page%20Author&year=2001&limit=1')).flat()).toEqual(both);
  });

  it('gives the next link as the full request URL with the same query and a cursor', async () => {
    const response = await get('/api/books?limit=2&year=1999&extra=kept');
    const link = new URL(nextLink(response) as string);
    expect(`${link.origin}${link.pathname}`).toBe(`${api.baseUrl}/api/books`);
    expect(Object.fromEntries(link.searchParams)).toEqual({
      limit: '2',
      year: '1999',
      extra: 'kept',
      cursor: expect.stringMatching(/^[\w-]+$/),
    });
  });

  it('sends no Link on the last page', async () => {
    const response = await get(`/api/books?limit=${created.length}`);
    expect(((await response.json()) as unknown[]).length).toBe(created.length);
    expect(response.headers.get('link')).toBeNull();
  });

  it('answers a malformed cursor or limit with 400 and the field', async () => {
    const badCursor = await get('/api/books?limit=5&cursor=nonsense');
    expect(badCursor.status).toBe(400);
    expect(((await badCursor.json()) as { errors: unknown }).errors).toEqual({ cursor: 'Cursor is not valid' });
    const badLimit = await get('/api/books?limit=5000');
    expect(badLimit.status).toBe(400);
    expect(((await badLimit.json()) as { errors: unknown }).errors).toEqual({
      limit: 'Limit must be an integer from 1 to 1000',
    });
  });
});

describe('GET /api/books past the operator’s cap (LIST_MAX_BOOKS)', () => {
  it('answers 422 pointing to pagination, never a truncated array', async () => {
    const response = await get('/api/books');
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body).toEqual({ timestamp: expect.any(String), status: 422, message: expect.stringContaining('?limit=') });
  });

  it('answers a filtered list within the cap whole, and pages past the cap as before', async () => {
    const atCap = await get('/api/books?year=1999');
    const byYear = created.filter((b) => b.publicationYear === 1999).map((b) => b.id);
    expect(atCap.status).toBe(200);
    expect(((await atCap.json()) as { id: number }[]).map((b) => b.id)).toEqual(byYear);
    expect((await walk(`/api/books?limit=${LIST_MAX_BOOKS + 3}`)).flat()).toEqual(created.map((b) => b.id));
  });

  it('still answers the full array when the result fits', async () => {
    const response = await get('/api/books?author=page%20author');
    expect(response.status).toBe(200);
    expect(response.headers.get('link')).toBeNull();
    expect(((await response.json()) as unknown[]).length).toBe(
      created.filter((b) => b.author === 'Page Author').length,
    );
  });
});
