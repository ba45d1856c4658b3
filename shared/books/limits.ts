/** Ids are 64-bit in the contract but kept JSON-safe, so no client ever loses precision. */
export const MAX_BOOK_ID = Number.MAX_SAFE_INTEGER;

/**
 * Page sizes a client may ask for. 1000 books of the longest allowed fields stay below 3 MB of
 * JSON, so a page always fits in Lambda's 6 MB response.
 */
export const MAX_PAGE_LIMIT = 1000;
/** The page size when a client sends a cursor without a limit. */
export const DEFAULT_PAGE_LIMIT = 100;

/**
 * The default cap of one unpaged list: that many of the largest books the schema allows
 * (MAX_LISTED_BOOK_BYTES in ./list-limits) stay well below Lambda's streamed-response limit, which a
 * unit test checks. Operators whose books are small raise it (`-c listMaxBooks=N`, `LIST_MAX_BOOKS`).
 */
export const DEFAULT_LIST_MAX_BOOKS = 35_000;
