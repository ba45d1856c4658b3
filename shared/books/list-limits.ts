import { MAX_BOOK_ID } from './limits';
import { MAX_AUTHOR_LENGTH, MAX_ISBN_LENGTH, MAX_TITLE_LENGTH } from './schemas';
import type { Book } from './types';

/**
 * The text that makes each character cost most in JSON: a control character other than \b \f \n
 * \r \t, which JSON.stringify writes as the six bytes `\u0001`. New books may no longer hold one,
 * but books stored before that rule may, and the cap must hold for every book a table can list. (Any other character costs at most
 * 4 bytes: 3 for most of the BMP in UTF-8, 4 for an astral one, which is still one code point.)
 */
const COSTLIEST_CHARACTER = '\u0001';
/** The latest instant a JavaScript Date can hold: its ISO form is the longest (27 characters). */
const LATEST_TIMESTAMP = new Date(8.64e15).toISOString();

/**
 * The largest book the contract allows, as the list writes it: every field at its longest and
 * costliest. The list's default cap (DEFAULT_LIST_MAX_BOOKS) is derived from it; kept apart from
 * ./limits so that the configuration table does not load the schemas into every function.
 */
export const LARGEST_BOOK: Book = {
  id: MAX_BOOK_ID,
  title: COSTLIEST_CHARACTER.repeat(MAX_TITLE_LENGTH),
  author: COSTLIEST_CHARACTER.repeat(MAX_AUTHOR_LENGTH),
  isbn: COSTLIEST_CHARACTER.repeat(MAX_ISBN_LENGTH),
  publicationYear: Number.MAX_SAFE_INTEGER,
  createdAt: LATEST_TIMESTAMP,
  updatedAt: LATEST_TIMESTAMP,
};

/** The bytes one book can add to a streamed list at most: its JSON and the comma before it. */
export const MAX_LISTED_BOOK_BYTES = Buffer.byteLength(JSON.stringify(LARGEST_BOOK), 'utf8') + 1;
