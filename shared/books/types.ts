import type * as v from 'valibot';
import type { BookInputSchema, BookPatchSchema } from './book-schema';

/** The client-owned fields, as POST and PUT carry them: what BookInputSchema outputs. */
export type BookInput = v.InferOutput<typeof BookInputSchema>;

/** A book record as clients see it. Timestamps are ISO-8601 UTC with milliseconds. */
export interface Book extends BookInput {
  id: number;
  createdAt: string;
  updatedAt: string;
}

/** A book and the version its stored record has reached (its entity tag is derived from it). */
export interface VersionedBook {
  book: Book;
  version: number;
}

/** A PATCH body: any subset of the client-owned fields; an optional one may be `null` (remove it). */
export type BookPatch = v.InferOutput<typeof BookPatchSchema>;

/** A book before the store has assigned its id. */
export type NewBook = Omit<Book, 'id'>;

/** Filters of GET /api/books, combined with AND. */
export interface BookFilter {
  author?: string;
  year?: number;
}

/** Field name -> violation message, as the 400 body's `errors` carries it. */
export type FieldErrors = Record<string, string>;

/** A page of the list, as `limit` and `cursor` ask for it. */
export interface PageRequest {
  /** At most this many books. */
  limit: number;
  /** Books after this id (decoded from the cursor). */
  after?: number;
}

export interface BookPage {
  books: Book[];
  /** The id the next page starts after; absent when this page is the last. */
  nextAfter?: number;
}

/** GET /api/books's query: the filter, and a page when the client asked for one. */
export interface BookListQuery {
  filter: BookFilter;
  page?: PageRequest;
}
