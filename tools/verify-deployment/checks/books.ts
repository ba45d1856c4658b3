import { isDeepStrictEqual } from 'node:util';
import { expectNoBody, expectStatus, expectUnderBase, fail, parseJson } from '../expect';
import { WHOLE_LIST } from '../http';
import type { Book } from '../run-books';
import type { Check } from '../types';
import { bookAt, call, expectArray, expectBookBody, fieldsOf, idsOf, nextLink, refusedCreate } from './support';

/** A book's life through the API, the lists, and the URLs the API writes, with the run's own books. */
export const BOOK_CHECKS: readonly Check[] = [
  {
    id: 'create',
    name: 'POST /api/books gets 201 with the book and a Location under the base URL',
    needsGatewayResponses: false,
    needs: ['basic'],
    run: async (context) => {
      for (const n of [1, 2]) {
        const fields = context.books.fields(n);
        const what = `POST book ${n}`;
        const response = await call(context, 'POST', '/api/books', fields);
        if (response.status === 201) context.books.recordCreated(parseJson(response, what));
        expectStatus(response, 201, what);
        const book = expectBookBody(response, fields, what);
        expectUnderBase(
          context.baseUrl,
          response.headers.get('location'),
          `/api/books/${book.id}`,
          `${what}: Location`,
        );
      }
      return `ids ${context.books.ids().join(', ')}`;
    },
  },
  {
    id: 'duplicate-isbn',
    name: 'POST with an ISBN already taken gets 409 with no body',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const taken = bookAt(context, 0);
      const what = 'POST with book 1’s ISBN';
      const response = await refusedCreate(
        context,
        { 'content-type': 'application/json' },
        JSON.stringify({ ...context.books.fields(3), isbn: taken.isbn }),
      );
      expectStatus(response, 409, what);
      expectNoBody(response, what);
      return undefined;
    },
  },
  {
    id: 'read',
    name: 'GET /api/books/{id} reads the book back',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const book = bookAt(context, 0);
      const response = await call(context, 'GET', `/api/books/${book.id}`);
      expectStatus(response, 200, 'GET the created book');
      const read = expectBookBody(response, fieldsOf(book), 'GET the created book', book.id);
      if (read.createdAt !== book.createdAt)
        fail(`GET the created book: createdAt ${read.createdAt}, not ${book.createdAt}`);
      return undefined;
    },
  },
  {
    id: 'replace',
    name: 'PUT /api/books/{id} replaces the book and keeps createdAt',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const book = bookAt(context, 0);
      const fields = { ...fieldsOf(book), title: `${book.title} replaced`, publicationYear: 1950 };
      const response = await call(context, 'PUT', `/api/books/${book.id}`, fields);
      expectStatus(response, 200, 'PUT');
      const replaced = expectBookBody(response, fields, 'PUT', book.id);
      if (replaced.createdAt !== book.createdAt) fail(`PUT: createdAt ${replaced.createdAt}, was ${book.createdAt}`);
      context.books.record(replaced);
      return undefined;
    },
  },
  {
    id: 'patch',
    name: 'PATCH /api/books/{id} changes the fields sent and nothing else',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const book = bookAt(context, 0);
      const title = `verify-deployment ${context.books.runId} book 1 patched`;
      const response = await call(context, 'PATCH', `/api/books/${book.id}`, { title });
      expectStatus(response, 200, 'PATCH');
      const patched = expectBookBody(response, { ...fieldsOf(book), title }, 'PATCH', book.id);
      if (Date.parse(patched.updatedAt) < Date.parse(book.updatedAt))
        fail(`PATCH: updatedAt ${patched.updatedAt} is before ${book.updatedAt}`);
      context.books.record(patched);
      return undefined;
    },
  },
  {
    id: 'filter',
    name: 'GET /api/books?author=&year= lists exactly the matching books',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const author = encodeURIComponent(context.books.author.toUpperCase());
      const both = expectArray(await call(context, 'GET', `/api/books?author=${author}`), 'author filter');
      if (!isDeepStrictEqual(idsOf(both), context.books.ids()))
        fail(
          `author filter (any case): ids ${JSON.stringify(idsOf(both))}, expected ${JSON.stringify(context.books.ids())}`,
        );
      const second = bookAt(context, 1);
      const target = `/api/books?author=${encodeURIComponent(context.books.author.toLowerCase())}&year=${second.publicationYear}`;
      const one = expectArray(await call(context, 'GET', target), 'author and year filter');
      if (!isDeepStrictEqual(idsOf(one), [second.id]))
        fail(`author and year filter: ids ${JSON.stringify(idsOf(one))}, expected [${second.id}]`);
      return undefined;
    },
  },
  {
    id: 'whole-list',
    name: 'GET /api/books, the whole list, parses to its end and holds every book this run created',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      let response = await call(context, 'GET', '/api/books', undefined, WHOLE_LIST);
      let note = '';
      if (response.status === 422) {
        // The operator's cap on unpaged lists (contract): the filtered list streams the same way.
        note = '; the whole list is capped by the operator (422), so the unpaged author-filtered list was read';
        response = await call(
          context,
          'GET',
          `/api/books?author=${encodeURIComponent(context.books.author)}`,
          undefined,
          WHOLE_LIST,
        );
      }
      const books = expectArray(response, 'the whole list');
      const listed = new Map(books.map((book) => [book.id, book]));
      for (const book of context.books.current.values()) {
        const found = listed.get(book.id);
        if (!found) fail(`the whole list (${books.length} books) lacks book ${book.id}, which this run created`);
        if (!isDeepStrictEqual(fieldsOf(found as unknown as Book), fieldsOf(book)))
          fail(`the whole list holds book ${book.id} as ${JSON.stringify(found)}`);
      }
      const ids = idsOf(books) as number[];
      if (ids.some((id, index) => index > 0 && id <= (ids[index - 1] as number)))
        fail('the whole list is not in ascending id order');
      return `${books.length} books, ${Buffer.byteLength(response.text)} bytes${note}`;
    },
  },
  {
    id: 'link',
    name: 'a paged list’s Link rel="next" is an absolute URL under the base URL and leads to the next page',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const query = `author=${encodeURIComponent(context.books.author)}&limit=1`;
      const first = await call(context, 'GET', `/api/books?${query}`);
      const page = expectArray(first, 'the first page');
      const [firstId, secondId] = context.books.ids();
      if (!isDeepStrictEqual(idsOf(page), [firstId]))
        fail(`the first page: ids ${JSON.stringify(idsOf(page))}, expected [${firstId}]`);
      const next = nextLink(first.headers.get('link'));
      const url = expectUnderBase(context.baseUrl, next ?? null, '/api/books', 'Link rel="next"');
      if (!url.searchParams.get('cursor')) fail(`Link rel="next": "${next}" carries no cursor`);
      const following = await call(context, 'GET', url.href);
      const nextPage = expectArray(following, 'the page Link names');
      if (!isDeepStrictEqual(idsOf(nextPage), [secondId]))
        fail(`the page Link names: ids ${JSON.stringify(idsOf(nextPage))}, expected [${secondId}]`);
      if (nextLink(following.headers.get('link'))) fail('the last page still has a Link rel="next"');
      return undefined;
    },
  },
  {
    id: 'delete',
    name: 'DELETE /api/books/{id} gets 204, then the book is 404',
    needsGatewayResponses: false,
    needs: ['create'],
    run: async (context) => {
      const book = bookAt(context, 0);
      const deleted = await call(context, 'DELETE', `/api/books/${book.id}`);
      expectStatus(deleted, 204, 'DELETE');
      context.books.forget(book.id);
      expectNoBody(deleted, 'DELETE');
      const read = await call(context, 'GET', `/api/books/${book.id}`);
      expectStatus(read, 404, 'GET after DELETE');
      expectNoBody(read, 'GET after DELETE');
      const again = await call(context, 'DELETE', `/api/books/${book.id}`);
      expectStatus(again, 404, 'DELETE again');
      return undefined;
    },
  },
];
