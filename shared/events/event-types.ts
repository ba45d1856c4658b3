/**
 * What a book's change event is called and numbered, apart from how it is built from a stream record
 * (book-event.ts): the AsyncAPI document names the same types without loading the store's code.
 */

/** The three kinds of change a book event reports, the last part of its `type`. */
export const BOOK_CHANGE_KINDS = ['created', 'updated', 'deleted'] as const;
export type BookChangeKind = (typeof BOOK_CHANGE_KINDS)[number];

/**
 * The extension attribute carrying the book's version (its ETag derives from it; a deletion's is one
 * past the last): it grows with each change of one book, so consumers order by it and ignore stale events.
 */
export const BOOK_VERSION_ATTRIBUTE = 'bookversion';

export interface BookEventNames {
  /** `type` is `<typePrefix>.book.<kind>`. */
  typePrefix: string;
  source: string;
}

export const bookEventType = (names: BookEventNames, kind: BookChangeKind) => `${names.typePrefix}.book.${kind}`;

/**
 * Derived from the change alone (book, version, kind), so a redelivered stream record gives the same
 * id and consumers can deduplicate on `source` and `id`; ids are never reused, so no two changes share one.
 */
export const bookEventId = (bookId: number, version: number, kind: BookChangeKind) =>
  `book-${bookId}-v${version}-${kind}`;
