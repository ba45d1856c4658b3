import { parseBookId } from '../../shared/books/schemas';
import { ifMatchOf } from '../../shared/http/conditional-requests';
import { httpHandler } from '../../shared/http/http-handler';
import { noContent } from '../../shared/http/responses';
import { bookService, requireIfMatch } from './wiring';

export const handler = httpHandler(async (event) => {
  const id = parseBookId(event.pathParameters.id);
  await bookService().delete(id, ifMatchOf(event, id, requireIfMatch()));
  return noContent();
});
