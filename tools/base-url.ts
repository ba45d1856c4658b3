import { UsageError } from './cli';

const API_SUFFIX = /\/api(\/books)?$/;

/**
 * Refuses a URL that already ends in /api or /api/books (the stack's ApiUrl output, README's `$B`),
 * naming the base URL the tools want instead of letting every request go to …/api/books/api/books.
 */
export const refuseApiPath = (url: URL, option: string): void => {
  const path = url.pathname.replace(/\/+$/, '');
  const suffix = API_SUFFIX.exec(path)?.[0];
  if (suffix === undefined) return;
  throw new UsageError(
    `${option} "${url.href}" ends in ${suffix}: give the base URL, what comes before /api/books ` +
      `(${url.origin}${path.slice(0, -suffix.length)})`,
  );
};
