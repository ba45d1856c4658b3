import { BookNotFoundError, DuplicateIsbnError } from '../../shared/books/errors';
import { normalizeAuthor, normalizeIsbn } from '../../shared/books/normalize';
import type { BookStore, ListOptions } from '../../shared/books/ports';
import type { Book, BookFilter, NewBook } from '../../shared/books/types';

/** An in-memory BookStore for fast unit tests of the use cases; never used by the service itself. */
export class MemoryBookStore implements BookStore {
  private readonly books = new Map<number, Book>();
  private lastId = 0;

  async create(book: NewBook): Promise<Book> {
    const id = ++this.lastId;
    this.assertIsbnFree(book.isbn, id);
    const stored = { ...book, id };
    this.books.set(id, stored);
    return { ...stored };
  }

  async get(id: number) {
    const book = this.books.get(id);
    return book && { ...book };
  }

  private matching({ author, year }: BookFilter): Book[] {
    return [...this.books.values()]
      .filter((b) => author === undefined || normalizeAuthor(b.author) === normalizeAuthor(author))
      .filter((b) => year === undefined || b.publicationYear === year)
      .sort((a, b) => a.id - b.id)
      .map((b) => ({ ...b }));
  }

  async *iterate(filter: BookFilter, { after = 0, limit = Number.POSITIVE_INFINITY }: ListOptions = {}) {
    const books = this.matching(filter).filter((b) => b.id > after);
    yield* books.slice(0, limit);
  }

  async update(id: number, change: (current: Book) => Book) {
    const current = this.books.get(id);
    if (!current) throw new BookNotFoundError(id);
    const next = { ...change({ ...current }), id };
    this.assertIsbnFree(next.isbn, id);
    this.books.set(id, next);
    return { ...next };
  }

  async delete(id: number) {
    if (!this.books.delete(id)) throw new BookNotFoundError(id);
  }

  private assertIsbnFree(isbn: string, ownerId: number) {
    for (const book of this.books.values()) {
      if (book.id !== ownerId && normalizeIsbn(book.isbn) === normalizeIsbn(isbn)) throw new DuplicateIsbnError(isbn);
    }
  }
}
