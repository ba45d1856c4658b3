import { describe, expect, it } from 'vitest';
import { BookService } from '../../shared/books/book-service';
import { encodeCursor } from '../../shared/books/cursor';
import { ValidationError } from '../../shared/books/errors';
import { parseBookQuery } from '../../shared/books/schemas';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import type { Operation } from '../../shared/openapi/types';
import { MemoryBookStore } from '../support/memory-book-store';
import { errorsOf } from '../support/validation';

describe('parseBookQuery', () => {
  // Strict equality throughout: a parameter the client did not send leaves no key behind, not even `undefined`.
  it('without limit or cursor asks for the whole list, as the contract has it', () => {
    expect(parseBookQuery({ author: 'Frank Herbert', year: '1965', other: 'x' })).toStrictEqual({
      filter: { author: 'Frank Herbert', year: 1965 },
    });
    expect(parseBookQuery({ author: 'Frank Herbert' })).toStrictEqual({ filter: { author: 'Frank Herbert' } });
    expect(parseBookQuery({ year: '1965' })).toStrictEqual({ filter: { year: 1965 } });
    expect(parseBookQuery(null)).toStrictEqual({ filter: {} });
  });

  it('with limit and/or cursor asks for a page; a cursor alone gets the default page size', () => {
    expect(parseBookQuery({ limit: '25' })).toStrictEqual({ filter: {}, page: { limit: 25 } });
    expect(parseBookQuery({ year: '1965', limit: '1000', cursor: encodeCursor(42) })).toStrictEqual({
      filter: { year: 1965 },
      page: { limit: 1000, after: 42 },
    });
    expect(parseBookQuery({ cursor: encodeCursor(7) })).toStrictEqual({ filter: {}, page: { limit: 100, after: 7 } });
  });

  it('takes a signed year as the integer it spells', () => {
    expect(parseBookQuery({ year: '+1965' }).filter).toStrictEqual({ year: 1965 });
    expect(parseBookQuery({ year: '-5' }).filter).toStrictEqual({ year: -5 });
  });

  it('documents every parameter in the OpenAPI document, from the schema itself', () => {
    const list = buildOpenApiDocument({ publicReads: false }).paths['/api/books']?.get as Operation;
    const described = Object.fromEntries((list.parameters ?? []).map((p) => [p.name, p.description ?? '']));
    expect(described.author).toMatch(/ignoring case/);
    expect(described.year).toMatch(/publicationYear/);
    expect(described.limit).toMatch(/1 to 1000.*Link/);
    expect(described.cursor).toMatch(/next/);
  });

  it.each(['0', '1001', '-1', '1.5', 'ten', ''])('rejects limit=%j with errors.limit', (limit) => {
    expect(errorsOf(() => parseBookQuery({ limit }))).toEqual({ limit: 'Limit must be an integer from 1 to 1000' });
  });

  it.each([
    '',
    'not a cursor',
    Buffer.from('0').toString('base64url'),
    Buffer.from('12a').toString('base64url'),
    'MTI=',
  ])('rejects cursor=%j with errors.cursor', (cursor) => {
    expect(errorsOf(() => parseBookQuery({ cursor }))).toEqual({ cursor: 'Cursor is not valid' });
  });

  it('reports every bad parameter at once', () => {
    expect(errorsOf(() => parseBookQuery({ year: 'x', limit: '0', cursor: '!' }))).toEqual({
      year: 'Year must be an integer',
      limit: 'Limit must be an integer from 1 to 1000',
      cursor: 'Cursor is not valid',
    });
  });
});

describe('cursors', () => {
  it('round-trip any id, and accept only their one canonical spelling', () => {
    const resumesAfter = (cursor: string) => parseBookQuery({ cursor }).page?.after;
    for (const id of [1, 42, Number.MAX_SAFE_INTEGER]) expect(resumesAfter(encodeCursor(id))).toBe(id);
    expect(() => resumesAfter(String(Number.MAX_SAFE_INTEGER + 1))).toThrow(ValidationError);
    expect(() => resumesAfter(`${encodeCursor(42)}=`)).toThrow(ValidationError);
    expect(() => resumesAfter('042')).toThrow(ValidationError);
  });

  it('resume only after a positive whole id, however canonically the text is encoded', () => {
    for (const text of ['-5', '1.5', '0', '5 ', 'x5', '1e3']) {
      expect(() => parseBookQuery({ cursor: text }), text).toThrow(ValidationError);
    }
  });
});

describe('BookService.page', () => {
  const seeded = async (count: number) => {
    const service = new BookService(new MemoryBookStore());
    for (let i = 1; i <= count; i++) {
      await service.create({
        title: `T${i}`,
        author: i % 2 ? 'Odd' : 'Even',
        isbn: `isbn-${i}`,
        publicationYear: 2000,
      });
    }
    return service;
  };

  it('walks every book exactly once, in id order, following nextAfter', async () => {
    const service = await seeded(7);
    const seen: number[] = [];
    let after: number | undefined;
    let pages = 0;
    do {
      const page = await service.page({}, { limit: 3, ...(after !== undefined && { after }) });
      seen.push(...page.books.map((b) => b.id));
      after = page.nextAfter;
      pages++;
    } while (after !== undefined);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pages).toBe(3);
  });

  it('gives no next page when the last page is exactly full', async () => {
    const service = await seeded(6);
    const second = await service.page({}, { limit: 3, after: 3 });
    expect(second.books.map((b) => b.id)).toEqual([4, 5, 6]);
    expect(second.nextAfter).toBeUndefined();
  });

  it('reads at most one book past the page, even from a store that would yield many more', async () => {
    let yielded = 0;
    // The store's limit is a page-size hint (ListOptions): it may go on to its next storage page.
    class EndlessStore extends MemoryBookStore {
      override async *iterate() {
        for (let id = 1; id <= 100; id++) {
          yielded++;
          yield { id, title: 'T', author: 'A', isbn: `i${id}`, publicationYear: 2000, createdAt: '', updatedAt: '' };
        }
      }
    }
    const page = await new BookService(new EndlessStore()).page({}, { limit: 3 });
    expect(page).toStrictEqual({ books: [1, 2, 3].map((id) => expect.objectContaining({ id })), nextAfter: 3 });
    expect(yielded).toBe(4);
  });

  it('pages within a filter', async () => {
    const service = await seeded(7);
    const first = await service.page({ author: 'odd' }, { limit: 2 });
    expect(first.books.map((b) => b.id)).toEqual([1, 3]);
    const next = await service.page({ author: 'odd' }, { limit: 2, after: first.nextAfter as number });
    expect(next.books.map((b) => b.id)).toEqual([5, 7]);
    expect(next.nextAfter).toBeUndefined();
  });
});
