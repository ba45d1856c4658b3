import type { IdempotentRequest } from './idempotency';
import type { VersionCondition } from './preconditions';
import type { Book, BookFilter, BookInput, NewBook, VersionedBook } from './types';

export interface ListOptions {
  /** Start after the book with this id (a page cursor). */
  after?: number;
  /** The caller takes at most this many books, so fetch no more than that per page. */
  limit?: number;
}

/**
 * What a PUT or PATCH changes: the supplied client fields, the new updatedAt, and who asked for it
 * (kept on the stored record, never part of the Book). A field present with the value `undefined`
 * is removed (a PUT that omits an optional field); an absent one is kept.
 */
export type BookChange = { [K in keyof BookInput]?: BookInput[K] | undefined } & {
  updatedAt: string;
  updatedBy?: string;
};

/**
 * What one book function does with the store: a read, a list, a create, an update (replace or
 * patch), a delete. The route table names each route's; the store grants each its own actions.
 */
export type BookStoreUse = 'read' | 'list' | 'create' | 'update' | 'delete';

/**
 * The port through which the book use cases reach storage. Adapters keep ISBN uniqueness
 * (compared in normalised form) atomic with every write, evaluate an If-Match condition inside the
 * write itself, and report rule violations with the domain's named errors: BookNotFoundError,
 * DuplicateIsbnError, PreconditionFailedError, IdempotencyKeyReusedError. A missing book is
 * BookNotFoundError whatever the condition (RFC 9110 §13.2.1).
 */
export interface BookStore {
  /**
   * Assigns a new, never reused id and stores the book at version 1; DuplicateIsbnError if its ISBN
   * is taken. With an idempotency key the key's record is stored with the book, atomically: a key
   * already used with the same fingerprint (and not expired) returns the book that request created,
   * as it was created, and stores nothing; with another fingerprint, IdempotencyKeyReusedError.
   * `createdBy`, the user who asked, is kept on the stored record as its creator and last changer.
   */
  create(book: NewBook, idempotency?: IdempotentRequest, createdBy?: string): Promise<VersionedBook>;
  /** A strongly consistent read; undefined when the book does not exist. */
  get(id: number): Promise<VersionedBook | undefined>;
  /**
   * The matching books in ascending id order, fetched page by page as the caller consumes them,
   * so it holds one storage page at a time and stops reading when the caller stops.
   */
  iterate(filter: BookFilter, options?: ListOptions): AsyncIterable<Book>;
  /**
   * How many books match, counted no further than `upTo`: the answer is the count, or `upTo` as
   * soon as that many are found. It holds no book (only a running total), so it can size a list
   * before the list is sent. It may lag behind writes made a moment ago (an estimate for a cap).
   */
  countUpTo(filter: BookFilter, upTo: number): Promise<number>;
  /**
   * A bound no count of the filter's matches can exceed, when the store knows one for less than a
   * count costs (undefined otherwise): a list under the cap by this bound needs no count at all.
   */
  upperBound?(filter: BookFilter): Promise<number | undefined>;
  /**
   * True when the store remembers, for less than a read of the list costs, that a recent count of
   * the filter's matches reached `upTo` (deletes since then may have taken it back under: the store
   * bounds how old the count may be); false when it does not know.
   */
  knownToReach?(filter: BookFilter, upTo: number): Promise<boolean>;
  /**
   * Sets the supplied fields and updatedAt (createdAt and the rest kept) and moves to the next
   * version, atomically with respect to concurrent writers, when the stored version satisfies
   * `condition` (PreconditionFailedError otherwise).
   */
  update(id: number, change: BookChange, condition?: VersionCondition): Promise<VersionedBook>;
  /** Removes the book and releases its ISBN when its version satisfies `condition`; BookNotFoundError if it does not exist. */
  delete(id: number, condition?: VersionCondition): Promise<void>;
}
