import { positiveIntegerPattern } from './documented-checks';
import { MAX_BOOK_ID } from './limits';

/**
 * Page cursors: the last id of the page, in decimal without leading zeros. The id is all a Query
 * needs to resume (see the store's start key). Clients take it from the `next` link and do not
 * build it; it is spelled plainly so that the OpenAPI document can state the valid cursors exactly
 * (one pattern), and every cursor the pattern admits is one the service accepts.
 */
export const CURSOR_PATTERN = new RegExp(`^${positiveIntegerPattern(MAX_BOOK_ID)}$`);

export const encodeCursor = (afterId: number): string => String(afterId);
