import { parseBookId } from '../../shared/books/schemas';
import { writeConditionOf } from '../../shared/http/conditional-requests';
import { httpHandler } from '../../shared/http/http-handler';
import { noContent } from '../../shared/http/responses';
import { bookService, requireIfMatch } from './wiring';

export const handler = httpHandler(async (event) => {
  const id = parseBookId(event.pathParameters.id);
  await bookService().delete(id, writeConditionOf(event, id, requireIfMatch()));
  return noContent();
});
