import { parseBookQuery } from '../../shared/books/schemas';
import { httpHandler } from '../../shared/http/http-handler';
import { jsonArrayBody, MAX_RESPONSE_BODY_BYTES } from '../../shared/http/json-array';
import { nextPageLink } from '../../shared/http/pagination';
import { json, okJsonText } from '../../shared/http/responses';
import { bookService } from './book-service';

/** `MAX_RESPONSE_BYTES` lowers the ceiling (tests); it can never raise it past what Lambda delivers. */
const maxBodyBytes = () => Math.min(Number(process.env.MAX_RESPONSE_BYTES) || Infinity, MAX_RESPONSE_BODY_BYTES);

export const handler = httpHandler(async (event) => {
  const { filter, page } = parseBookQuery(event.queryStringParameters);
  if (!page) {
    return okJsonText(await jsonArrayBody(bookService().list(filter), maxBodyBytes()));
  }
  const { books, nextAfter } = await bookService().page(filter, page);
  return json(200, books, nextAfter === undefined ? {} : { Link: nextPageLink(event, nextAfter) });
});
