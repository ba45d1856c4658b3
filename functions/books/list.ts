import { readSetting } from '../../shared/config';
import { httpHandler } from '../../shared/http/http-handler';
import { listBooks } from '../../shared/http/list-books';
import { streamedJsonArray } from '../../shared/http/streamed-json-array';
import { bookService } from './wiring';

export const handler = httpHandler(
  listBooks(bookService, (books, context) =>
    streamedJsonArray(books, {
      route: 'ListBooks',
      maxItems: readSetting('listMaxBooks'),
      remainingMs: () => context.getRemainingTimeInMillis(),
    }),
  ),
  { streaming: true },
);
