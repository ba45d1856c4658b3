import { parseBookId } from '../../shared/books/schemas';
import { httpHandler } from '../../shared/http/http-handler';
import { noContent } from '../../shared/http/responses';
import { bookService } from './wiring';

export const handler = httpHandler(async (event) => {
  await bookService().delete(parseBookId(event.pathParameters.id));
  return noContent();
});
