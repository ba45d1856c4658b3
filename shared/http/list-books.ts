import type { Context } from 'aws-lambda';
import type { BookService } from '../books/book-service';
import { parseBookQuery } from '../books/schemas';
import type { Book, BookFilter } from '../books/types';
import { nextPageLink } from './pagination';
import { json } from './responses';
import type { HttpEvent, HttpResponse, StreamedHttpResponse } from './types';

/** How the whole (unpaged) list goes out: streamed on Lambda, buffered where no stream can be relayed. */
export type WholeListResponse = (
  books: AsyncIterable<Book>,
  context: Context,
  filter: BookFilter,
) => Promise<HttpResponse | StreamedHttpResponse>;

/**
 * GET /api/books, whichever form the whole list takes: the query parsed, a page answered with the
 * Link to the next one, the whole list handed to `wholeList`. Both list functions are this, so the
 * filters, the pages and the errors cannot differ between them.
 */
export const listBooks =
  (service: () => Pick<BookService, 'list' | 'page'>, wholeList: WholeListResponse) =>
  async (event: HttpEvent, context: Context): Promise<HttpResponse | StreamedHttpResponse> => {
    const { filter, page } = parseBookQuery(event.queryStringParameters);
    if (!page) return wholeList(service().list(filter), context, filter);
    const { books, nextAfter } = await service().page(filter, page);
    return json(200, books, nextAfter === undefined ? {} : { Link: nextPageLink(event, nextAfter) });
  };
