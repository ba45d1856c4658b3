import { parseBookId, parseBookInput } from '../../shared/books/schemas';
import { httpHandler } from '../../shared/http/http-handler';
import { jsonBody } from '../../shared/http/json-body';
import { ok } from '../../shared/http/responses';
import { bookService } from './wiring';

export const handler = httpHandler(
  async (event) => {
    const id = parseBookId(event.pathParameters.id);
    return ok(await bookService().replace(id, parseBookInput(event.body)));
  },
  { use: [jsonBody()] },
);
