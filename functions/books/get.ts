import { parseBookId } from '../../shared/books/schemas';
import { etagOf, ifNoneMatchOf } from '../../shared/http/conditional-requests';
import { httpHandler } from '../../shared/http/http-handler';
import { noneMatch } from '../../shared/http/preconditions';
import { notModified, ok } from '../../shared/http/responses';
import { bookService } from './wiring';

export const handler = httpHandler(async (event) => {
  const id = parseBookId(event.pathParameters.id);
  const ifNoneMatch = ifNoneMatchOf(event);
  const found = await bookService().get(id);
  const { ETag } = etagOf(found);
  return noneMatch(id, found.version, ifNoneMatch) ? ok(found.book, { ETag }) : notModified(ETag);
});
