import {
  BookNotFoundError,
  DuplicateIsbnError,
  IdempotencyKeyReusedError,
  PreconditionFailedError,
} from '../../shared/books/errors';
import type { IdempotentRequest } from '../../shared/books/idempotency';
import { normalizeAuthor, normalizeIsbn } from '../../shared/books/normalize';
import type { BookChange, BookStore, ListOptions } from '../../shared/books/ports';
import { failedPrecondition, type VersionCondition } from '../../shared/books/preconditions';
import type { Book, BookFilter, NewBook, VersionedBook } from '../../shared/books/types';

/** An in-memory BookStore for fast unit tests of the use cases; never used by the service itself. */
export class MemoryBookStore implements BookStore {
  private readonly books = new Map<number, VersionedBook>();
  private readonly keys = new Map<string, { fingerprint: string; created: VersionedBook }>();
  private lastId = 0;

  async create(book: NewBook, idempotency?: IdempotentRequest): Promise<VersionedBook> {
    const id = ++this.lastId;
    const keyName = idempotency && JSON.stringify([idempotency.owner, idempotency.key]);
    const used = keyName === undefined ? undefined : this.keys.get(keyName);
    if (used && idempotency) {
      if (used.fingerprint !== idempotency.fingerprint) throw new IdempotencyKeyReusedError();
      return copy(used.created);
    }
    this.assertIsbnFree(book.isbn, id);
    const stored = { book: { ...book, id }, version: 1 };
    this.books.set(id, stored);
    if (keyName && idempotency) this.keys.set(keyName, { fingerprint: idempotency.fingerprint, created: copy(stored) });
    return copy(stored);
  }

  async get(id: number) {
    const stored = this.books.get(id);
    return stored && copy(stored);
  }

  private matching({ author, year }: BookFilter): Book[] {
    return [...this.books.values()]
      .map(({ book }) => book)
      .filter((b) => author === undefined || normalizeAuthor(b.author) === normalizeAuthor(author))
      .filter((b) => year === undefined || b.publicationYear === year)
      .sort((a, b) => a.id - b.id)
      .map((b) => ({ ...b }));
  }

  async *iterate(filter: BookFilter, { after = 0, limit = Number.POSITIVE_INFINITY }: ListOptions = {}) {
    const books = this.matching(filter).filter((b) => b.id > after);
    yield* books.slice(0, limit);
  }

  async countUpTo(filter: BookFilter, upTo: number) {
    return Math.min(this.matching(filter).length, upTo);
  }

  async update(id: number, change: BookChange, condition?: VersionCondition) {
    const current = this.existing(id, condition);
    const book = { ...current.book, ...change, id };
    // A field changed to `undefined` is removed, as the DynamoDB store's REMOVE does.
    for (const [field, value] of Object.entries(book))
      if (value === undefined) delete (book as Record<string, unknown>)[field];
    const next = { book, version: current.version + 1 };
    this.assertIsbnFree(next.book.isbn, id);
    this.books.set(id, next);
    return copy(next);
  }

  async delete(id: number, condition?: VersionCondition) {
    this.existing(id, condition);
    this.books.delete(id);
  }

  private existing(id: number, condition: VersionCondition | undefined): VersionedBook {
    const current = this.books.get(id);
    if (!current) throw new BookNotFoundError(id);
    const failed = failedPrecondition(current.version, condition);
    if (failed) throw new PreconditionFailedError(id, current.version, failed);
    return current;
  }

  private assertIsbnFree(isbn: string, ownerId: number) {
    for (const { book } of this.books.values()) {
      if (book.id !== ownerId && normalizeIsbn(book.isbn) === normalizeIsbn(isbn)) throw new DuplicateIsbnError(isbn);
    }
  }
}

const copy = ({ book, version }: VersionedBook): VersionedBook => ({ book: { ...book }, version });
