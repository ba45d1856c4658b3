import { parseBookId, parseBookPatch } from '../../shared/books/schemas';
import { etagOf, writeConditionOf } from '../../shared/http/conditional-requests';
import { httpHandler } from '../../shared/http/http-handler';
import { jsonBody, MERGE_PATCH_MEDIA_TYPE } from '../../shared/http/json-body';
import { authenticatedUser } from '../../shared/http/required-role';
import { ok } from '../../shared/http/responses';
import { bookService, requireIfMatch } from './wiring';

export const handler = httpHandler(
  async (event) => {
    const id = parseBookId(event.pathParameters.id);
    const condition = writeConditionOf(event, id, requireIfMatch());
    const stored = await bookService().patch(id, parseBookPatch(event.body), condition, authenticatedUser(event));
    return ok(stored.book, etagOf(stored));
  },
  { use: [jsonBody({ alsoAccept: [MERGE_PATCH_MEDIA_TYPE] })] },
);
