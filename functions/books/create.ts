import { parseBookInput } from '../../shared/books/schemas';
import { httpHandler } from '../../shared/http/http-handler';
import { jsonBody } from '../../shared/http/json-body';
import { requestUrl } from '../../shared/http/request-url';
import { created } from '../../shared/http/responses';
import { bookService } from './wiring';

export const handler = httpHandler(
  async (event) => {
    const book = await bookService().create(parseBookInput(event.body));
    return created(book, `${requestUrl(event)}/${book.id}`);
  },
  { use: [jsonBody()] },
);
