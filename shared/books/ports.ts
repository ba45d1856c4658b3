import type { Book, BookFilter, NewBook } from './types';

export interface ListOptions {
  /** Start after the book with this id (a page cursor). */
  after?: number;
  /** The caller takes at most this many books, so fetch no more than that per page. */
  limit?: number;
}

/**
 * The port through which the book use cases reach storage. Adapters keep ISBN uniqueness
 * (compared in normalised form) atomic with every write, and report rule violations with the
 * domain's named errors: BookNotFoundError, DuplicateIsbnError.
 */
export interface BookStore {
  /** Assigns a new, never reused id and stores the book; DuplicateIsbnError if its ISBN is taken. */
  create(book: NewBook): Promise<Book>;
  /** A strongly consistent read; undefined when the book does not exist. */
  get(id: number): Promise<Book | undefined>;
  /**
   * The matching books in ascending id order, fetched page by page as the caller consumes them,
   * so it holds one storage page at a time and stops reading when the caller stops.
   */
  iterate(filter: BookFilter, options?: ListOptions): AsyncIterable<Book>;
  /**
   * Replaces the stored book with `change(current)`, atomically with respect to concurrent writers:
   * if the book changed in between, `change` is applied again to the newer version.
   */
  update(id: number, change: (current: Book) => Book): Promise<Book>;
  /** Removes the book and releases its ISBN; BookNotFoundError if it does not exist. */
  delete(id: number): Promise<void>;
}
