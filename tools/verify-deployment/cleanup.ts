import { basicAuthorization } from './http';
import type { RunBooks } from './run-books';
import type { CheckResult, Credentials, HttpClient } from './types';

export const CLEANUP_NAME = 'clean-up: every book this run created is deleted';

/**
 * Deletes the run's books: every id a 201 named, then any other book the run's author filter
 * finds whose ISBN carries the run id (a create whose answer was lost). Books of anyone else are
 * never touched: a book is deleted only by an id this run was given, or when its author and ISBN
 * carry this run's id. A list that cannot be read leaves the sweep undone: a FAIL that says so,
 * since the run cannot then confirm that nothing of it is left.
 */
export const cleanUp = async (http: HttpClient, credentials: Credentials, books: RunBooks): Promise<CheckResult> => {
  const headers = { authorization: basicAuthorization(credentials) };
  const left: string[] = [];
  let deleted = 0;
  const remove = async (id: number) => {
    const response = await http
      .send({ method: 'DELETE', target: `/api/books/${id}`, headers })
      .catch((error: Error) => error);
    if (response instanceof Error) left.push(`${id} (${response.message})`);
    else if (response.status === 204) deleted++;
    else if (response.status !== 404) left.push(`${id} (DELETE answered ${response.status})`);
    books.forget(id);
  };
  for (const id of books.ids()) await remove(id);

  let sweep = '';
  const listed = await http
    .send({ target: `/api/books?author=${encodeURIComponent(books.author)}`, headers })
    .catch((error: Error) => error);
  if (listed instanceof Error || listed.status !== 200) {
    sweep = `; the run's books could not be listed to confirm (${listed instanceof Error ? listed.message : `status ${listed.status}`})`;
  } else {
    try {
      const found = (JSON.parse(listed.text) as { id: number; isbn?: unknown; author?: unknown }[]).filter((book) =>
        books.isOurs(book),
      );
      for (const book of found) await remove(book.id);
    } catch (error) {
      sweep = `; the run's books could not be listed to confirm (${(error as Error).message})`;
    }
  }
  if (left.length > 0) {
    return { name: CLEANUP_NAME, outcome: 'FAIL', detail: `left behind, delete by hand: ${left.join(', ')}${sweep}` };
  }
  // Unconfirmed is not clean: a create whose answer was lost may have left a book only the sweep finds.
  if (sweep) return { name: CLEANUP_NAME, outcome: 'FAIL', detail: `${deleted} deleted${sweep}` };
  return { name: CLEANUP_NAME, outcome: 'PASS', detail: `${deleted} deleted` };
};
