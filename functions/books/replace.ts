import { parseBookId, parseBookInput } from '../../shared/books/schemas';
import { etagOf, writeConditionOf } from '../../shared/http/conditional-requests';
import { httpHandler } from '../../shared/http/http-handler';
import { jsonBody } from '../../shared/http/json-body';
import { authenticatedUser } from '../../shared/http/required-role';
import { ok } from '../../shared/http/responses';
import { bookService, requireIfMatch } from './wiring';

export const handler = httpHandler(
  async (event) => {
    const id = parseBookId(event.pathParameters.id);
    const condition = writeConditionOf(event, id, requireIfMatch());
    const stored = await bookService().replace(id, parseBookInput(event.body), condition, authenticatedUser(event));
    return ok(stored.book, etagOf(stored));
  },
  { use: [jsonBody()] },
);
