import { Readable } from 'node:stream';
import { MAX_PAGE_LIMIT } from '../books/limits';
import { logger } from '../observability/logger';
import { countTruncatedResponse } from '../observability/metrics';
import { ListTooLargeError } from './errors';
import { jsonArrayChunks } from './json-array';
import { STREAMED_RESPONSE_MAX_BYTES } from './lambda-limits';
import { okJsonText } from './responses';
import type { StreamedHttpResponse } from './types';

/**
 * How long before Lambda's timeout a stream stops writing: ended by the function, the failure is
 * logged and counted; cut by the timeout, it would only show as Lambda's own timeout line.
 */
export const STOP_STREAMING_BEFORE_TIMEOUT_MS = 1_000;

/**
 * With a cap, the items read before the count is asked for: a list that ends within them is
 * answered without counting. A page's worth, which the paged list holds anyway.
 */
export const UNCOUNTED_HEAD_ITEMS = MAX_PAGE_LIMIT;

/** The stream ran into the function's deadline. */
export class StreamDeadlineError extends Error {
  override readonly name = 'StreamDeadlineError';
  constructor() {
    super(`The response stream stopped ${STOP_STREAMING_BEFORE_TIMEOUT_MS} ms before the function's timeout`);
  }
}

/** The list grew past the cap after it was counted (books created meanwhile). */
export class ListGrewPastCapError extends Error {
  override readonly name = 'ListGrewPastCapError';
  constructor(maxItems: number) {
    super(`The list grew past ${maxItems} items after it was counted`);
  }
}

/** The next chunk would take the response past its byte budget (Lambda's streamed-response cap). */
export class ResponseBudgetError extends Error {
  override readonly name = 'ResponseBudgetError';
  constructor(maxBytes: number) {
    super(`The response would exceed ${maxBytes} bytes`);
  }
}

/** The unpaged list's cap: at most `maxItems`, and how to learn, without reading them, whether there are more. */
interface ListCap {
  maxItems: number;
  /** Whether the whole list holds more than `maxItems` items (a count: nothing is held). */
  holdsMore: () => Promise<boolean>;
  /** Whether that is known already, for less than reading the list's head costs (false: not known). */
  knownToHoldMore?: () => Promise<boolean>;
}

export interface StreamedJsonArrayOptions {
  /** The route, for the log and the metric of a stream cut short. */
  route: string;
  /** Answer ListTooLargeError (422) rather than list more than the cap. */
  cap?: ListCap | undefined;
  /** Milliseconds left before the function's timeout (the Lambda context's). */
  remainingMs: () => number;
  /** UTF-8 bytes the body may take at most (default: Lambda's cap on a streamed response). */
  maxBytes?: number;
}

/**
 * A 200 whose body is the JSON array of `items`, written as the items arrive. The status is
 * committed only once the first item has been read, so a store that cannot be read at all still
 * gets its proper error response. With a cap, the answer (200 or ListTooLargeError) is decided
 * before the first byte without holding the list: a list already known to be over the cap
 * (`cap.knownToHoldMore`) is refused before any item is read; otherwise up to UNCOUNTED_HEAD_ITEMS
 * items are read first, and a list that goes on is counted (`cap.holdsMore`). After the status, a failure cannot
 * change it: see failVisibly.
 */
export const streamedJsonArray = async (
  items: AsyncIterable<unknown>,
  { route, cap, remainingMs, maxBytes = STREAMED_RESPONSE_MAX_BYTES }: StreamedJsonArrayOptions,
): Promise<StreamedHttpResponse> => {
  // A list remembered to be over the cap is answered before a book is read; under a cap the head
  // alone decides, it is not asked (it would cost a call the head does not need).
  if (cap !== undefined && cap.maxItems >= UNCOUNTED_HEAD_ITEMS && (await cap.knownToHoldMore?.())) {
    throw new ListTooLargeError();
  }
  const iterator = items[Symbol.asyncIterator]();
  const head: unknown[] = [];
  const wanted = cap === undefined ? 1 : Math.min(cap.maxItems + 1, UNCOUNTED_HEAD_ITEMS);
  while (head.length < wanted) {
    const next = await iterator.next();
    if (next.done) return okJsonText(JSON.stringify(head));
    head.push(next.value);
  }
  if (cap !== undefined && (head.length > cap.maxItems || (await cap.holdsMore()))) {
    await iterator.return?.();
    throw new ListTooLargeError();
  }
  let source = resumed(head, iterator);
  if (cap !== undefined) source = atMost(source, cap.maxItems);
  const chunks = withinBudget(untilDeadline(jsonArrayChunks(source), remainingMs), maxBytes);
  // One chunk at a time between the merge and the response stream: the stream's own buffer and
  // backpressure bound the rest.
  return { ...okJsonText(''), body: Readable.from(failVisibly(chunks, route), { highWaterMark: 1 }) };
};

/**
 * `head`, then the rest of `iterator`, handing each `next` straight to it rather than through a
 * generator of its own: every layer of async generators costs an asynchronous step per item.
 */
const resumed = <T>(head: readonly T[], iterator: AsyncIterator<T>): AsyncIterable<T> => {
  let given = 0;
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => (given < head.length ? Promise.resolve({ done: false, value: head[given++] as T }) : iterator.next()),
      return: async () => {
        await iterator.return?.();
        return { done: true, value: undefined };
      },
    }),
  };
};

/**
 * The items, failing with ListGrewPastCapError at the first one past `maxItems`: the count that
 * allowed the list is a moment old, and the cap must hold for what is sent. A plain iterator, not
 * a generator, for the reason `resumed` gives.
 */
const atMost = <T>(items: AsyncIterable<T>, maxItems: number): AsyncIterable<T> => {
  const iterator = items[Symbol.asyncIterator]();
  let given = 0;
  return {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        const next = await iterator.next();
        if (!next.done && ++given > maxItems) {
          await iterator.return?.();
          throw new ListGrewPastCapError(maxItems);
        }
        return next;
      },
      return: async () => {
        await iterator.return?.();
        return { done: true, value: undefined };
      },
    }),
  };
};

/**
 * The chunks, stopping with StreamDeadlineError when time runs out. Checked between chunks (a few
 * hundred books each), well within STOP_STREAMING_BEFORE_TIMEOUT_MS; stopping closes the items' source.
 */
async function* untilDeadline(
  chunks: AsyncIterable<string>,
  remainingMs: () => number,
): AsyncGenerator<string, void, undefined> {
  for await (const chunk of chunks) {
    yield chunk;
    if (remainingMs() < STOP_STREAMING_BEFORE_TIMEOUT_MS) throw new StreamDeadlineError();
  }
}

/**
 * The chunks while their UTF-8 bytes stay within `maxBytes`; the chunk that would pass it fails
 * with ResponseBudgetError instead of being sent. Within the default cap no list comes near it; a
 * cap an operator raised for small books could, and then the function, not Lambda, stops the stream.
 */
async function* withinBudget(chunks: AsyncIterable<string>, maxBytes: number): AsyncGenerator<string, void, undefined> {
  let sent = 0;
  for await (const chunk of chunks) {
    sent += Buffer.byteLength(chunk, 'utf8');
    if (sent > maxBytes) throw new ResponseBudgetError(maxBytes);
    yield chunk;
  }
}

/**
 * Once the status has gone out, a failure can no longer be an error response. The failure is
 * logged and counted (TruncatedResponses), then passed on: the body stream is destroyed with it,
 * so the transfer itself fails (Lambda's runtime errors the response stream; the local server
 * cuts the connection before the chunked body's end). A client never sees the body end as if
 * complete, and the array is never closed, so even a client that ignores the transfer error
 * cannot parse it as a shorter list.
 */
async function* failVisibly(chunks: AsyncIterable<string>, route: string): AsyncGenerator<string, void, undefined> {
  try {
    yield* chunks;
  } catch (error) {
    logger.error('Response stream cut short', { route, error: error as Error });
    countTruncatedResponse(route);
    throw error;
  }
}
