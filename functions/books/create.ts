import { parseBookInput } from '../../shared/books/schemas';
import { createKeyOf, etagOf } from '../../shared/http/conditional-requests';
import { httpHandler } from '../../shared/http/http-handler';
import { jsonBody } from '../../shared/http/json-body';
import { requestUrl } from '../../shared/http/request-url';
import { authenticatedUser } from '../../shared/http/required-role';
import { created } from '../../shared/http/responses';
import { bookService } from './wiring';

export const handler = httpHandler(
  async (event) => {
    const key = createKeyOf(event);
    const stored = await bookService().create(parseBookInput(event.body), key, authenticatedUser(event));
    return created(stored.book, `${requestUrl(event)}/${stored.book.id}`, etagOf(stored));
  },
  { use: [jsonBody()] },
);
