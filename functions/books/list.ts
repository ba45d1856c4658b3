import { parseBookQuery } from '../../shared/books/schemas';
import { httpHandler } from '../../shared/http/http-handler';
import { jsonArrayBody } from '../../shared/http/json-array';
import { nextPageLink } from '../../shared/http/pagination';
import { json, okJsonText } from '../../shared/http/responses';
import { bookService, listResponseCeiling } from './wiring';

export const handler = httpHandler(async (event) => {
  const { filter, page } = parseBookQuery(event.queryStringParameters);
  if (!page) {
    return okJsonText(await jsonArrayBody(bookService().list(filter), listResponseCeiling.bytes));
  }
  const { books, nextAfter } = await bookService().page(filter, page);
  return json(200, books, nextAfter === undefined ? {} : { Link: nextPageLink(event, nextAfter) });
});
