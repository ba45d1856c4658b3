import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkBooksTable } from '../../ops/invariants';
import { apiClient, sendRequest } from '../support/api-client';
import { BASIC_DEMO, startLocalApi } from '../support/local-api';

/**
 * Races through the real local API (authorizer, handlers, Dynoxide), each followed by the
 * invariant checker: whatever the interleaving, no write is lost and no ISBN is held twice.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
let client: ReturnType<typeof apiClient>;

beforeAll(async () => {
  api = await startLocalApi();
  client = apiClient(api.baseUrl);
});
afterAll(() => api.close());
afterEach(async () => {
  expect((await checkBooksTable(api.tables.documentClient, api.tables.names.books)).violations).toEqual([]);
});

const book = (isbn: string, extra: Record<string, unknown> = {}) => ({
  title: 'Race',
  author: 'Racer',
  isbn,
  publicationYear: 2001,
  ...extra,
});
const create = async (isbn: string) => {
  const response = await client.call('POST', '/api/books', book(isbn));
  expect(response.status).toBe(201);
  return response.json as { id: number; isbn: string };
};
const statuses = (responses: { status: number }[]) => responses.map((r) => r.status).sort();
const all = <T>(count: number, make: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, i) => make(i)));

describe('races', () => {
  it('many concurrent creates of one ISBN (in different spellings): exactly one 201, the rest 409', async () => {
    const spellings = ['978-3-16-148410-0', '9783161484100', '978 3 16 148410 0', '978-3161484100'];
    const responses = await all(32, (i) => client.call('POST', '/api/books', book(spellings[i % 4] as string)));
    expect(statuses(responses)).toEqual([201, ...Array(31).fill(409)]);
    expect(responses.filter((r) => r.status === 409).every((r) => r.text === '')).toBe(true);
    const listed = (await client.call('GET', '/api/books')).json as { isbn: string }[];
    expect(listed.filter((b) => b.isbn.replace(/[\s-]/g, '') === '9783161484100')).toHaveLength(1);
  });

  it('concurrent creates of distinct ISBNs all succeed with distinct ids', async () => {
    const responses = await all(32, (i) => client.call('POST', '/api/books', book(`distinct-${i}`)));
    expect(statuses(responses)).toEqual(Array(32).fill(201));
    expect(new Set(responses.map((r) => r.json.id)).size).toBe(32);
  });

  it('PUT and PATCH swapping two books’ ISBNs concurrently never leave both with one ISBN', async () => {
    for (let round = 0; round < 10; round++) {
      const a = await create(`swap-a-${round}`);
      const b = await create(`swap-b-${round}`);
      const [put, patch] = await Promise.all([
        client.call('PUT', `/api/books/${a.id}`, book(b.isbn)),
        client.call('PATCH', `/api/books/${b.id}`, { isbn: a.isbn }),
      ]);
      // Each may win only once the other has released its ISBN; neither may break uniqueness.
      expect([200, 409]).toContain(put.status);
      expect([200, 409]).toContain(patch.status);
      const [afterA, afterB] = await Promise.all([
        client.call('GET', `/api/books/${a.id}`),
        client.call('GET', `/api/books/${b.id}`),
      ]);
      expect(afterA.json.isbn).toBe(put.status === 200 ? b.isbn : a.isbn);
      expect(afterB.json.isbn).toBe(patch.status === 200 ? a.isbn : b.isbn);
      expect(afterA.json.isbn).not.toBe(afterB.json.isbn);
    }
  });

  it('a three-way ISBN rotation under contention keeps every ISBN on exactly one book', async () => {
    const books = await all(3, (i) => create(`rotate-${i}`));
    const isbns = books.map((b) => b.isbn);
    await all(30, (i) => {
      const target = books[i % 3] as { id: number };
      const isbn = isbns[(i + 1) % 3] as string;
      return i % 2
        ? client.call('PATCH', `/api/books/${target.id}`, { isbn })
        : client.call('PUT', `/api/books/${target.id}`, book(isbn));
    }).then((responses) => expect(responses.every((r) => r.status === 200 || r.status === 409)).toBe(true));
    const held = (await all(3, (i) => client.call('GET', `/api/books/${books[i]?.id}`))).map((r) => r.json.isbn);
    expect(new Set(held).size).toBe(3);
  });

  it('concurrent DELETE, PUT and PATCH of one book: the delete wins for good and releases the ISBN', async () => {
    for (let round = 0; round < 10; round++) {
      const target = await create(`doomed-${round}`);
      const path = `/api/books/${target.id}`;
      const [removed, ...updates] = await Promise.all([
        client.call('DELETE', path),
        client.call('PUT', path, book(`doomed-${round}-moved`)),
        client.call('PATCH', path, { title: 'Patched' }),
        client.call('PATCH', path, { isbn: `doomed-${round}-patched` }),
      ]);
      expect(removed.status).toBe(204);
      for (const update of updates) expect([200, 404]).toContain(update.status);
      expect((await client.call('GET', path)).status).toBe(404);
      // Whichever ISBN the book held last was released with it.
      for (const isbn of [`doomed-${round}`, `doomed-${round}-moved`, `doomed-${round}-patched`]) {
        expect((await client.call('POST', '/api/books', book(isbn))).status).toBe(201);
      }
    }
  });

  it('concurrent PATCHes of different fields of one book lose none of them', async () => {
    const target = await create('patch-merge');
    const patches = [
      { title: 'New title' },
      { author: 'New author' },
      { publicationYear: 1999 },
      { isbn: 'patch-merge-2' },
    ];
    const responses = await all(patches.length, (i) => client.call('PATCH', `/api/books/${target.id}`, patches[i]));
    expect(statuses(responses)).toEqual([200, 200, 200, 200]);
    expect((await client.call('GET', `/api/books/${target.id}`)).json).toMatchObject(Object.assign({}, ...patches));
  });

  it('concurrent double DELETE: one 204, one 404', async () => {
    const target = await create('double-delete');
    const responses = await all(2, () => client.call('DELETE', `/api/books/${target.id}`));
    expect(statuses(responses)).toEqual([204, 404]);
  });

  const conditional = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
    sendRequest(api.baseUrl, method, path, body, { authorization: BASIC_DEMO, ...headers });

  it('concurrent writes with the same If-Match tag: exactly one 2xx, the rest 412, and the winner’s change stands', async () => {
    for (let round = 0; round < 5; round++) {
      const created = await client.call('POST', '/api/books', book(`tagged-${round}`));
      const etag = created.headers.get('etag') as string;
      const path = `/api/books/${created.json.id}`;
      const responses = await Promise.all([
        conditional('PUT', path, book(`tagged-${round}`, { title: 'PUT kept' }), { 'if-match': etag }),
        conditional('PUT', path, book(`tagged-${round}-moved`, { title: 'PUT moved' }), { 'if-match': etag }),
        conditional('PATCH', path, { title: 'PATCH' }, { 'if-match': etag }),
        conditional('PATCH', path, { isbn: `tagged-${round}-patched` }, { 'if-match': etag }),
      ]);
      expect(statuses(responses)).toEqual([200, 412, 412, 412]);
      const winner = responses.find((r) => r.status === 200);
      const current = await client.call('GET', path);
      expect(current.json).toEqual(winner?.json);
      for (const lost of responses.filter((r) => r.status === 412)) {
        expect(lost.headers.get('etag')).toBe(current.headers.get('etag'));
      }
    }
  });

  it('a conditional DELETE racing conditional updates with the same tag: one wins', async () => {
    const created = await client.call('POST', '/api/books', book('tagged-delete'));
    const etag = created.headers.get('etag') as string;
    const path = `/api/books/${created.json.id}`;
    const responses = await Promise.all([
      conditional('DELETE', path, undefined, { 'if-match': etag }),
      conditional('PATCH', path, { title: 'x' }, { 'if-match': etag }),
      conditional('PUT', path, book('tagged-delete'), { 'if-match': etag }),
    ]);
    const won = responses.filter((r) => r.status === 200 || r.status === 204);
    expect(won).toHaveLength(1);
    expect(responses.every((r) => [200, 204, 404, 412].includes(r.status))).toBe(true);
  });

  it('concurrent creates with one Idempotency-Key: one book, every answer its 201', async () => {
    const responses = await all(16, () =>
      conditional('POST', '/api/books', book('keyed-race'), { 'idempotency-key': '"keyed-race"' }),
    );
    expect(statuses(responses)).toEqual(Array(16).fill(201));
    expect(new Set(responses.map((r) => r.json.id)).size).toBe(1);
    const listed = (await client.call('GET', '/api/books')).json as { isbn: string }[];
    expect(listed.filter((b) => b.isbn === 'keyed-race')).toHaveLength(1);
  });
});
