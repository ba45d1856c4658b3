import { BookService } from '../../shared/books/book-service';
import { parseBookQuery } from '../../shared/books/schemas';
import { readSetting } from '../../shared/config';
import { httpHandler } from '../../shared/http/http-handler';
import { okJsonText } from '../../shared/http/responses';
import { DynamoBookStore } from '../../shared/store/dynamodb-book-store';
import { createDocumentClient } from '../../shared/store/dynamodb-client';

let service: BookService | undefined;

/**
 * The list as it was before it streamed, kept as the bench's baseline: the same store call, the
 * whole array built in memory and returned as one proxy result. On Lambda such a body is refused
 * above 6 MB (the service then answered 422); here it is measured at every size, for its memory.
 */
export const handler = httpHandler(async (event) => {
  const { filter } = parseBookQuery(event.queryStringParameters);
  service ??= new BookService(new DynamoBookStore(createDocumentClient(), readSetting('booksTableName')));
  const parts: string[] = [];
  for await (const book of service.list(filter)) parts.push(JSON.stringify(book));
  return okJsonText(`[${parts.join(',')}]`);
});
