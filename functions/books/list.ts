import { readSetting } from '../../shared/config';
import { httpHandler } from '../../shared/http/http-handler';
import { listBooks } from '../../shared/http/list-books';
import { streamedJsonArray } from '../../shared/http/streamed-json-array';
import { bookService } from './wiring';

export const handler = httpHandler(
  listBooks(bookService, (books, context, filter) => {
    const maxItems = readSetting('listMaxBooks');
    return streamedJsonArray(books, {
      route: 'ListBooks',
      cap: {
        maxItems,
        holdsMore: () => bookService().holdsMoreThan(filter, maxItems),
        knownToHoldMore: () => bookService().knownToHoldMoreThan(filter, maxItems),
      },
      remainingMs: () => context.getRemainingTimeInMillis(),
    });
  }),
  { streaming: true },
);
