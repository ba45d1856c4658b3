/** What Lambda itself allows a function's response: the platform's limits, not the books domain's. */

/**
 * Lambda's cap on one streamed response: 200 MB (AWS Lambda's "Lambda quotas" page), read as
 * 200 × 10^6 bytes, the smaller of the two ways to read "MB". Past it Lambda ends the stream.
 */
export const STREAMED_RESPONSE_MAX_BYTES = 200_000_000;
