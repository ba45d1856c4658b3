import type { NewBook } from '../../shared/books/types';

/** The fixed time the store tests stamp their books with. */
export const STAMP = '2026-01-01T00:00:00.000Z';

/** A book as the use cases hand it to a store: valid fields, stamped, no id yet. */
export const newBook = (isbn: string, extra: Partial<NewBook> = {}): NewBook => ({
  title: 'Title',
  author: 'Author',
  isbn,
  publicationYear: 2000,
  createdAt: STAMP,
  updatedAt: STAMP,
  ...extra,
});
