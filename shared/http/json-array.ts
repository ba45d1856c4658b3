import { ResultTooLargeError } from './errors';

/**
 * Lambda refuses a synchronous response over 6 MB (6,291,456 bytes; the runtime's own error quotes
 * 6,291,556), counted on the serialised proxy result, in which the body is a JSON string: every `"`
 * and `\` of the body is escaped and counts twice.
 */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;

/** Room left for `statusCode`, the headers and the result's own JSON around the body. */
const ENVELOPE_RESERVE_BYTES = 8 * 1024;

/** The largest body a proxy result can carry. */
export const MAX_RESPONSE_BODY_BYTES = LAMBDA_RESPONSE_LIMIT_BYTES - ENVELOPE_RESERVE_BYTES;

/** Bytes a piece of body text takes inside the serialised proxy result (escaped, UTF-8). */
export const bytesInProxyResult = (text: string): number => Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;

/**
 * A JSON array built from items as they arrive. Once the body could no longer be delivered it stops
 * consuming (so no further pages are read) and throws ResultTooLargeError: a client gets a clear
 * error rather than a truncated array or the gateway's bare 502. Written by hand because what it
 * measures is Lambda's envelope, which no JSON streaming library knows about.
 */
export const jsonArrayBody = async (
  items: AsyncIterable<unknown>,
  maxBytes: number = MAX_RESPONSE_BODY_BYTES,
): Promise<string> => {
  const parts: string[] = [];
  let size = 2; // the brackets
  for await (const item of items) {
    const json = JSON.stringify(item);
    size += bytesInProxyResult(json) + (parts.length > 0 ? 1 : 0);
    if (size > maxBytes) throw new ResultTooLargeError();
    parts.push(json);
  }
  return `[${parts.join(',')}]`;
};
