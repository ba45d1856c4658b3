import { BOOK_SCHEMA, type BookSchema } from './book-schema';
import { BookNotFoundError, PreconditionFailedError } from './errors';
import { requestFingerprint } from './idempotency';
import type { BookStore } from './ports';
import { failedPrecondition, type VersionCondition } from './preconditions';
import type { Book, BookFilter, BookInput, BookPage, BookPatch, PageRequest, VersionedBook } from './types';

/** A create's idempotency key (as the client chose it) and the user it belongs to. */
export interface CreateKey {
  owner: string;
  key: string;
}

export type Clock = () => Date;

/** The book use cases. Input has already been validated by the schemas in `./schemas`. */
export class BookService {
  constructor(
    private readonly store: BookStore,
    private readonly clock: Clock = () => new Date(),
    private readonly schema: BookSchema = BOOK_SCHEMA,
  ) {}

  /**
   * With a key, a repeat of the same request (same book fields) returns the book the first one
   * created, as it was created; the same key with other fields is IdempotencyKeyReusedError.
   */
  create(input: BookInput, key?: CreateKey, by?: string): Promise<VersionedBook> {
    const now = this.now();
    const book = { ...everyClientField(input, this.schema), createdAt: now, updatedAt: now };
    return this.store.create(book, key && { ...key, fingerprint: requestFingerprint(input, this.schema) }, by);
  }

  async get(id: number): Promise<VersionedBook> {
    const found = await this.store.get(id);
    if (!found) throw new BookNotFoundError(id);
    return found;
  }

  /** Every match, read from storage as the consumer goes, so it can stop early. */
  list(filter: BookFilter): AsyncIterable<Book> {
    return this.store.iterate(filter);
  }

  /**
   * Whether a whole list of this filter would hold more than `maxBooks` books, decided by counting
   * (nothing held) rather than by reading the books, or without a count when the store's bound on
   * the matches is within `maxBooks`.
   */
  async holdsMoreThan(filter: BookFilter, maxBooks: number): Promise<boolean> {
    const bound = await this.store.upperBound?.(filter);
    if (bound !== undefined && bound <= maxBooks) return false;
    return (await this.store.countUpTo(filter, maxBooks + 1)) > maxBooks;
  }

  /**
   * Whether a whole list of this filter is already known to hold more than `maxBooks` books (the
   * store's remembered count), decided before any book is read; false when nothing is known.
   */
  async knownToHoldMoreThan(filter: BookFilter, maxBooks: number): Promise<boolean> {
    return (await this.store.knownToReach?.(filter, maxBooks + 1)) ?? false;
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

  /** The whole record is replaced; the id comes from the path and createdAt is kept; only when the stored version meets `condition`. */
  replace(id: number, input: BookInput, condition?: VersionCondition, by?: string): Promise<VersionedBook> {
    return this.store.update(
      id,
      { ...everyClientField(input, this.schema), updatedAt: this.now(), ...writer(by) },
      condition,
    );
  }

  /**
   * Only supplied fields change, and an optional one supplied as `null` is removed (as JSON Merge
   * Patch does); `{}` changes nothing, updatedAt included (`condition` still applies).
   */
  async patch(id: number, patch: BookPatch, condition?: VersionCondition, by?: string): Promise<VersionedBook> {
    if (Object.keys(patch).length > 0) {
      const supplied = Object.fromEntries(Object.entries(patch).map(([field, value]) => [field, value ?? undefined]));
      return this.store.update(id, { ...supplied, updatedAt: this.now(), ...writer(by) }, condition);
    }
    const found = await this.get(id);
    const failed = failedPrecondition(found.version, condition);
    if (failed) throw new PreconditionFailedError(id, found.version, failed);
    return found;
  }

  delete(id: number, condition?: VersionCondition): Promise<void> {
    return this.store.delete(id, condition);
  }

  private now(): string {
    return this.clock().toISOString();
  }
}

/** `by`, the user a write is made for, as a change records it. */
const writer = (by: string | undefined) => (by === undefined ? {} : { updatedBy: by });

/** Every client field the schema knows, an omitted optional one as `undefined` (which a replace removes). */
const everyClientField = (input: BookInput, schema: BookSchema): BookInput =>
  Object.fromEntries(
    schema.inputFields.map((field) => [field, (input as Record<string, unknown>)[field]]),
  ) as BookInput;
