import { parseBookId } from '../../shared/books/schemas';
import { httpHandler } from '../../shared/http/http-handler';
import { ok } from '../../shared/http/responses';
import { bookService } from './wiring';

export const handler = httpHandler(async (event) => ok(await bookService().get(parseBookId(event.pathParameters.id))));
