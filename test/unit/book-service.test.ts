import { beforeEach, describe, expect, it } from 'vitest';
import { BookService } from '../../shared/books/book-service';
import { BookNotFoundError, DuplicateIsbnError } from '../../shared/books/errors';
import { MemoryBookStore } from '../support/memory-book-store';

const dune = { title: 'Dune', author: 'Frank Herbert', isbn: '978-0441013593', publicationYear: 1965 };

describe('BookService', () => {
  let now: Date;
  let service: BookService;

  beforeEach(() => {
    now = new Date('2026-01-01T00:00:00.000Z');
    service = new BookService(new MemoryBookStore(), () => now);
  });

  const later = () => {
    now = new Date(now.getTime() + 60_000);
  };

  it('creates a book with both timestamps set to now', async () => {
    const book = await service.create(dune);
    expect(book).toEqual({
      ...dune,
      id: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
  });

  it('replace keeps the id and createdAt and refreshes updatedAt', async () => {
    const book = await service.create(dune);
    later();
    const replaced = await service.replace(book.id, { ...dune, title: 'Dune Messiah', publicationYear: 1969 });
    expect(replaced).toEqual({
      ...dune,
      title: 'Dune Messiah',
      publicationYear: 1969,
      id: book.id,
      createdAt: book.createdAt,
      updatedAt: '2026-01-01T00:01:00.000Z',
    });
  });

  it('patch changes only supplied fields and refreshes updatedAt', async () => {
    const book = await service.create(dune);
    later();
    expect(await service.patch(book.id, { publicationYear: 1966 })).toEqual({
      ...book,
      publicationYear: 1966,
      updatedAt: '2026-01-01T00:01:00.000Z',
    });
  });

  it('an empty patch changes nothing, updatedAt included', async () => {
    const book = await service.create(dune);
    later();
    expect(await service.patch(book.id, {})).toEqual(book);
  });

  it('reports missing books', async () => {
    await expect(service.get(7)).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(service.patch(7, {})).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(service.patch(7, { title: 'x' })).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(service.replace(7, dune)).rejects.toBeInstanceOf(BookNotFoundError);
    await expect(service.delete(7)).rejects.toBeInstanceOf(BookNotFoundError);
  });

  it('keeps ISBNs unique in normalised form', async () => {
    await service.create(dune);
    await expect(service.create({ ...dune, isbn: '9780441013593' })).rejects.toBeInstanceOf(DuplicateIsbnError);
  });
});
