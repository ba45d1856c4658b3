import { parseBookQuery } from '../../shared/books/schemas';
import { readSetting } from '../../shared/config';
import { httpHandler } from '../../shared/http/http-handler';
import { nextPageLink } from '../../shared/http/pagination';
import { json } from '../../shared/http/responses';
import { streamedJsonArray } from '../../shared/http/streamed-json-array';
import { bookService } from './wiring';

export const handler = httpHandler(
  async (event, context) => {
    const { filter, page } = parseBookQuery(event.queryStringParameters);
    if (!page) {
      const maxItems = readSetting('listMaxBooks');
      return streamedJsonArray(bookService().list(filter), {
        route: 'ListBooks',
        cap: { maxItems, holdsMore: () => bookService().holdsMoreThan(filter, maxItems) },
        remainingMs: () => context.getRemainingTimeInMillis(),
      });
    }
    const { books, nextAfter } = await bookService().page(filter, page);
    return json(200, books, nextAfter === undefined ? {} : { Link: nextPageLink(event, nextAfter) });
  },
  { streaming: true },
);
