import { logger } from '../observability/logger';
import { ListTooLargeError } from './errors';
import { okJsonText } from './responses';
import type { HttpResponse } from './types';

/**
 * Lambda's limit on a buffered (RequestResponse) function result: 6 MB. Above it Lambda fails the
 * invocation and the caller answers 502 on its own, so a buffered answer must stay below it.
 */
export const LAMBDA_BUFFERED_RESPONSE_BYTES = 6 * 1024 * 1024;

/**
 * Room kept in that limit for everything of the proxy result around the list: status code, headers
 * (Content-Type, Authentication-Info, a Link), and the JSON envelope. The headers are a few hundred bytes.
 */
const RESPONSE_ENVELOPE_BYTES = 16 * 1024;

/** The most bytes the list's own text may take in the function's result. */
export const BUFFERED_LIST_BYTES = LAMBDA_BUFFERED_RESPONSE_BYTES - RESPONSE_ENVELOPE_BYTES;

export interface BufferedJsonArrayOptions {
  /** Answer ListTooLargeError (422) rather than list more than this many items. */
  maxItems?: number | undefined;
  /** Answer ListTooLargeError (422) rather than a body taking more than this in the function's result. */
  maxBytes?: number;
}

/**
 * What `text` takes in the function's result: the body is a string inside the proxy result's JSON,
 * so each quote and backslash gains an escape, and the runtime writes it as UTF-8.
 */
const resultBytes = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2;

/**
 * A 200 whose body is the JSON array of `items`, built whole before it is returned: the form of the
 * list for hosts that cannot relay a streamed response (`sam local start-api`). Its size is counted
 * as each item arrives, so a list that would outgrow Lambda's buffered limit (or the deployment's
 * item cap) is the same 422 with the page hint as the streamed list's cap, decided before any of the
 * body is returned, and the store is read no further than the limit.
 */
export const bufferedJsonArray = async (
  items: AsyncIterable<unknown>,
  { maxItems, maxBytes = BUFFERED_LIST_BYTES }: BufferedJsonArrayOptions = {},
): Promise<HttpResponse> => {
  const texts: string[] = [];
  let bytes = '[]'.length;
  // Leaving the loop by a throw closes the items' source (the store's query).
  for await (const item of items) {
    const text = JSON.stringify(item);
    bytes += resultBytes(text) + (texts.length > 0 ? ','.length : 0);
    texts.push(text);
    if (maxItems !== undefined && texts.length > maxItems) throw new ListTooLargeError();
    if (bytes > maxBytes) {
      logger.info('List larger than a buffered response may be', { books: texts.length, maxBytes });
      throw new ListTooLargeError();
    }
  }
  return okJsonText(`[${texts.join(',')}]`);
};
