import { MAX_BOOK_ID } from './limits';

/**
 * Page cursors are opaque to clients: base64url of the last id of the page. The id is all a Query
 * needs to resume (see the store's start key), and a canonical encoding is demanded back so a cursor
 * has exactly one spelling.
 */
export const encodeCursor = (afterId: number): string => Buffer.from(String(afterId), 'latin1').toString('base64url');

/** The id a cursor resumes after, or undefined when the text is not a cursor this service made. */
export const decodeCursor = (cursor: string): number | undefined => {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return undefined;
  const id = Number(text);
  return id <= MAX_BOOK_ID && encodeCursor(id) === cursor ? id : undefined;
};
