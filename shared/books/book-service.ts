import { BookNotFoundError } from './errors';
import type { BookStore } from './ports';
import type { Book, BookFilter, BookInput, BookPage, BookPatch, PageRequest } from './types';

export type Clock = () => Date;

/** The book use cases. Input has already been validated by the schemas in `./schemas`. */
export class BookService {
  constructor(
    private readonly store: BookStore,
    private readonly clock: Clock = () => new Date(),
  ) {}

  create(input: BookInput): Promise<Book> {
    const now = this.now();
    return this.store.create({ ...pickInput(input), createdAt: now, updatedAt: now });
  }

  async get(id: number): Promise<Book> {
    const book = await this.store.get(id);
    if (!book) throw new BookNotFoundError(id);
    return book;
  }

  /** Every match, read from storage as the consumer goes, so it can stop early. */
  list(filter: BookFilter): AsyncIterable<Book> {
    return this.store.iterate(filter);
  }

  /**
   * One page. It asks the store for one book more than the page holds: that book's existence is
   * what says a next page exists, so a `next` link never leads to an empty page.
   */
  async page(filter: BookFilter, { limit, after }: PageRequest): Promise<BookPage> {
    const books: Book[] = [];
    for await (const book of this.store.iterate(filter, { after, limit: limit + 1 })) {
      books.push(book);
      if (books.length > limit) break;
    }
    if (books.length <= limit) return { books };
    books.pop();
    return { books, nextAfter: (books.at(-1) as Book).id };
  }

  /** The whole record is replaced; the id comes from the path and createdAt is kept. */
  replace(id: number, input: BookInput): Promise<Book> {
    return this.store.update(id, (current) => ({
      ...pickInput(input),
      id,
      createdAt: current.createdAt,
      updatedAt: this.now(),
    }));
  }

  /** Only supplied fields change; `{}` changes nothing, updatedAt included. */
  patch(id: number, patch: BookPatch): Promise<Book> {
    if (Object.keys(patch).length === 0) return this.get(id);
    return this.store.update(id, (current) => ({
      ...current,
      ...patch,
      updatedAt: this.now(),
    }));
  }

  delete(id: number): Promise<void> {
    return this.store.delete(id);
  }

  private now(): string {
    return this.clock().toISOString();
  }
}

const pickInput = ({ title, author, isbn, publicationYear }: BookInput): BookInput => ({
  title,
  author,
  isbn,
  publicationYear,
});
