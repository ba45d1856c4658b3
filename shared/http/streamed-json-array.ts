import { Readable } from 'node:stream';
import { logger } from '../observability/logger';
import { countTruncatedResponse } from '../observability/metrics';
import { ListTooLargeError } from './errors';
import { jsonArrayChunks } from './json-array';
import { okJsonText } from './responses';
import type { StreamedHttpResponse } from './types';

/**
 * How long before Lambda's timeout a stream stops writing: ended by the function, the failure is
 * logged and counted; cut by the timeout, it would only show as Lambda's own timeout line.
 */
export const STOP_STREAMING_BEFORE_TIMEOUT_MS = 1_000;

/** The stream ran into the function's deadline. */
export class StreamDeadlineError extends Error {
  override readonly name = 'StreamDeadlineError';
  constructor() {
    super(`The response stream stopped ${STOP_STREAMING_BEFORE_TIMEOUT_MS} ms before the function's timeout`);
  }
}

export interface StreamedJsonArrayOptions {
  /** The route, for the log and the metric of a stream cut short. */
  route: string;
  /** Answer ListTooLargeError (422) rather than list more than this many items. */
  maxItems?: number | undefined;
  /** Milliseconds left before the function's timeout (the Lambda context's). */
  remainingMs: () => number;
}

/**
 * A 200 whose body is the JSON array of `items`, written as the items arrive. The status is
 * committed only once the first item has been read, so a store that cannot be read at all still
 * gets its proper error response. With `maxItems`, up to `maxItems + 1` items are read first (the
 * cap bounds what they hold): one too many is ListTooLargeError, else the whole array is sent.
 * After the status, a failure cannot change it: see cutShortOnFailure.
 */
export const streamedJsonArray = async (
  items: AsyncIterable<unknown>,
  { route, maxItems, remainingMs }: StreamedJsonArrayOptions,
): Promise<StreamedHttpResponse> => {
  const iterator = items[Symbol.asyncIterator]();
  const head: unknown[] = [];
  const wanted = maxItems === undefined ? 1 : maxItems + 1;
  while (head.length < wanted) {
    const next = await iterator.next();
    if (next.done) return okJsonText(JSON.stringify(head));
    head.push(next.value);
  }
  if (maxItems !== undefined) {
    await iterator.return?.();
    throw new ListTooLargeError();
  }
  const chunks = untilDeadline(jsonArrayChunks(resumed(head, iterator)), remainingMs);
  // One chunk at a time between the merge and the response stream: the stream's own buffer and
  // backpressure bound the rest.
  return { ...okJsonText(''), body: Readable.from(cutShortOnFailure(chunks, route), { highWaterMark: 1 }) };
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
 * Once the status has gone out, a failure can no longer be an error response. The stream then ends
 * where it is, the array unclosed, so every client's JSON parser rejects the body rather than take
 * a shorter array for the whole list; the failure is logged and counted (TruncatedResponses).
 */
async function* cutShortOnFailure(
  chunks: AsyncIterable<string>,
  route: string,
): AsyncGenerator<string, void, undefined> {
  try {
    yield* chunks;
  } catch (error) {
    logger.error('Response stream cut short', { route, error: error as Error });
    countTruncatedResponse(route);
  }
}
