import { bookEventNames } from '../../shared/events/names';
import { httpHandler } from '../../shared/http/http-handler';
import { ok } from '../../shared/http/responses';
import { buildAsyncApiDocument } from '../../shared/openapi/asyncapi';

let document: ReturnType<typeof buildAsyncApiDocument> | undefined;

/** Public: the AsyncAPI 3 document of the books' change events, built once per container. */
export const handler = httpHandler(async () => {
  document ??= buildAsyncApiDocument(bookEventNames());
  return ok(document);
});
