import { parseBookId, parseBookPatch } from '../../shared/books/schemas';
import { httpHandler } from '../../shared/http/http-handler';
import { jsonBody, MERGE_PATCH_MEDIA_TYPE } from '../../shared/http/json-body';
import { ok } from '../../shared/http/responses';
import { bookService } from './wiring';

export const handler = httpHandler(
  async (event) => {
    const id = parseBookId(event.pathParameters.id);
    return ok(await bookService().patch(id, parseBookPatch(event.body)));
  },
  { use: [jsonBody({ alsoAccept: [MERGE_PATCH_MEDIA_TYPE] })] },
);
