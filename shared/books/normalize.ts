/**
 * The form in which ISBNs are compared for uniqueness: spaces and hyphens removed, letters
 * upper-cased, so `978-0-13-468599-1` and `9780134685991` are the same book.
 */
export const normalizeIsbn = (isbn: string): string => isbn.replace(/[\s-]/g, '').toUpperCase();

/** The form in which authors are compared by the `author` filter: equal ignoring case, no trimming. */
export const normalizeAuthor = (author: string): string => author.normalize('NFC').toLowerCase();
