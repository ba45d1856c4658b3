import { beforeEach, describe, expect, it } from 'vitest';
import { BookService } from '../../shared/books/book-service';
import {
  BookNotFoundError,
  DuplicateIsbnError,
  IdempotencyKeyReusedError,
  PreconditionFailedError,
} from '../../shared/books/errors';
import type { IdempotentRequest } from '../../shared/books/idempotency';
import { requestFingerprint } from '../../shared/books/idempotency';
import type { NewBook } from '../../shared/books/types';
import { MemoryBookStore } from '../support/memory-book-store';

const dune = { title: 'Dune', author: 'Frank Herbert', isbn: '978-0441013593', publicationYear: 1965 };

describe('BookService', () => {
  let now: Date;
  let store: MemoryBookStore;
  let service: BookService;

  beforeEach(() => {
    now = new Date('2026-01-01T00:00:00.000Z');
    store = new MemoryBookStore();
    service = new BookService(store, () => now);
  });

  const later = () => {
    now = new Date(now.getTime() + 60_000);
  };

  /** Three books in the store, and the `upTo` of every count the service asks of it. */
  const threeBooksCountingAsked = async () => {
    for (let i = 0; i < 3; i++) await service.create({ ...dune, isbn: `isbn-${i}` });
    const asked: number[] = [];
    const countUpTo = store.countUpTo.bind(store);
    store.countUpTo = async (filter, upTo) => {
      asked.push(upTo);
      return countUpTo(filter, upTo);
    };
    return asked;
  };

  it('tells whether a whole list would hold more than a cap, by counting no further than one past it', async () => {
    const asked = await threeBooksCountingAsked();
    expect(await service.holdsMoreThan({}, 2)).toBe(true);
    expect(await service.holdsMoreThan({}, 3)).toBe(false);
    expect(await service.holdsMoreThan({ author: 'nobody' }, 0)).toBe(false);
    expect(asked).toEqual([3, 4, 1]);
  });

  it('leaves the count out when the store bounds the matches within the cap, and counts when the bound passes it', async () => {
    const asked = await threeBooksCountingAsked();
    Object.assign(store, { upperBound: async () => 3 });
    expect(await service.holdsMoreThan({}, 3)).toBe(false);
    expect(asked).toEqual([]);
    expect(await service.holdsMoreThan({}, 2)).toBe(true);
    expect(asked).toEqual([3]);
  });

  it('knows a list holds more than a cap only from a store that remembers a count of one past it', async () => {
    await threeBooksCountingAsked();
    // A store that remembers no counts knows nothing: the list is not known to be too long.
    expect(await service.knownToHoldMoreThan({}, 2)).toBe(false);
    const asked: number[] = [];
    Object.assign(store, {
      knownToReach: async (_filter: unknown, upTo: number) => {
        asked.push(upTo);
        return upTo <= 3;
      },
    });
    expect(await service.knownToHoldMoreThan({}, 2)).toBe(true);
    expect(await service.knownToHoldMoreThan({}, 3)).toBe(false);
    expect(asked).toEqual([3, 4]);
  });

  it('creates a book at version 1 with both timestamps set to now', async () => {
    const created = await service.create(dune);
    expect(created).toEqual({
      book: { ...dune, id: 1, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' },
      version: 1,
    });
  });

  it('stores only the four client fields of a create', async () => {
    const { book } = await service.create({ ...dune, id: 99, version: 7 } as typeof dune);
    expect(book).toEqual({ ...dune, id: 1, createdAt: book.createdAt, updatedAt: book.updatedAt });
  });

  it('replace keeps the id and createdAt, refreshes updatedAt and moves to the next version', async () => {
    const { book } = await service.create(dune);
    later();
    const replaced = await service.replace(book.id, { ...dune, title: 'Dune Messiah', publicationYear: 1969 });
    expect(replaced).toEqual({
      book: {
        ...dune,
        title: 'Dune Messiah',
        publicationYear: 1969,
        id: book.id,
        createdAt: book.createdAt,
        updatedAt: '2026-01-01T00:01:00.000Z',
      },
      version: 2,
    });
  });

  it('patch changes only supplied fields and refreshes updatedAt', async () => {
    const { book } = await service.create(dune);
    later();
    expect(await service.patch(book.id, { publicationYear: 1966 })).toEqual({
      book: { ...book, publicationYear: 1966, updatedAt: '2026-01-01T00:01:00.000Z' },
      version: 2,
    });
  });

  it('an empty patch changes nothing, updatedAt and version included', async () => {
    const created = await service.create(dune);
    later();
    expect(await service.patch(created.book.id, {})).toEqual(created);
  });

  it('reports missing books, whatever the condition', async () => {
    await expect(service.get(7)).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(service.patch(7, {})).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(service.patch(7, {}, { match: [1] })).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(service.patch(7, { title: 'x' })).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(service.replace(7, dune, { match: [] })).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(service.delete(7)).rejects.toBeInstanceOf(BookNotFoundError);
  });

  it('keeps ISBNs unique in normalised form', async () => {
    await service.create(dune);
    await expect(service.create({ ...dune, isbn: '9780441013593' })).rejects.toBeInstanceOf(DuplicateIsbnError);
  });

  describe('If-Match conditions', () => {
    it('writes when the stored version is one the condition names, or any with *', async () => {
      const { book } = await service.create(dune);
      expect((await service.patch(book.id, { title: 'A' }, { match: [1] })).version).toBe(2);
      expect((await service.replace(book.id, dune, { match: [5, 2] })).version).toBe(3);
      expect((await service.patch(book.id, { title: 'B' }, { match: '*' })).version).toBe(4);
      await service.delete(book.id, { match: [4] });
      await expect(service.get(book.id)).rejects.toBeInstanceOf(BookNotFoundError);
    });

    it('refuses a stale version with the current one, and changes nothing', async () => {
      const created = await service.create(dune);
      await service.patch(created.book.id, { title: 'Changed' });
      for (const attempt of [
        () => service.patch(created.book.id, { title: 'Lost' }, { match: [1] }),
        () => service.patch(created.book.id, {}, { match: [1] }),
        () => service.replace(created.book.id, dune, { match: [] }),
        () => service.delete(created.book.id, { match: [1] }),
      ]) {
        await expect(attempt()).rejects.toEqual(
          expect.objectContaining({ name: 'PreconditionFailedError', currentVersion: 2 }),
        );
      }
      expect((await service.get(created.book.id)).book.title).toBe('Changed');
    });

    it('an empty patch with a current tag returns the book as it is', async () => {
      const created = await service.create(dune);
      expect(await service.patch(created.book.id, {}, { match: [1] })).toEqual(created);
      await expect(service.patch(created.book.id, {}, { match: [2] })).rejects.toBeInstanceOf(PreconditionFailedError);
    });
  });

  describe('Idempotency-Key', () => {
    const alice = { owner: 'alice', key: 'k-1' };

    it('hands the store the owner, the key and the fingerprint of the four fields', async () => {
      const seen: (IdempotentRequest | undefined)[] = [];
      class Spy extends MemoryBookStore {
        override create(book: NewBook, idempotency?: IdempotentRequest) {
          seen.push(idempotency);
          return super.create(book, idempotency);
        }
      }
      const spied = new BookService(new Spy(), () => now);
      await spied.create(dune, alice);
      await spied.create({ ...dune, isbn: 'other' });
      expect(seen).toEqual([{ ...alice, fingerprint: requestFingerprint(dune) }, undefined]);
    });

    it('replays the first create for the same key and body, later changes notwithstanding', async () => {
      const first = await service.create(dune, alice);
      later();
      await service.patch(first.book.id, { title: 'Changed' });
      expect(await service.create(dune, alice)).toEqual(first);
    });

    it('refuses the same key with another body, and treats other users and keys apart', async () => {
      await service.create(dune, alice);
      await expect(service.create({ ...dune, title: 'Other' }, alice)).rejects.toBeInstanceOf(
        IdempotencyKeyReusedError,
      );
      await expect(service.create(dune, { owner: 'bob', key: 'k-1' })).rejects.toBeInstanceOf(DuplicateIsbnError);
      await expect(service.create(dune, { owner: 'alice', key: 'k-2' })).rejects.toBeInstanceOf(DuplicateIsbnError);
    });
  });
});
