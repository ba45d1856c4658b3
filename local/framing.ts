import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { failure, validationFailure } from '../shared/http/responses';

/**
 * RFC 9112's message-framing rules, checked before a request is routed, each answered with the
 * contract's JSON (Node's own answers to them are bare status lines) and with the connection closed:
 * once the framing is in doubt, bytes after the request must never be read as another request.
 */

/** Every Host value the client sent, as text (a hostile client may send several). */
export const hostValues = (request: IncomingMessage): string[] => {
  const values: string[] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    if ((request.rawHeaders[i] as string).toLowerCase() === 'host') values.push(request.rawHeaders[i + 1] as string);
  }
  return values;
};

const HOST_REQUIRED = 'Host is required in an HTTP/1.1 request';
const HOST_REPEATED = 'Host must be sent once';
const HTTP10_TRANSFER_ENCODING = 'Transfer-Encoding is not valid in an HTTP/1.0 request';
const EXPECTATION_FAILED = 'Expect may only be 100-continue';

/** A result whose connection ends after it (Node closes on a `Connection: close` the response sets). */
const closing = (result: APIGatewayProxyResult): APIGatewayProxyResult => ({
  ...result,
  headers: { ...result.headers, Connection: 'close' },
});

const isHttp10 = (request: IncomingMessage) => request.httpVersionMajor === 1 && request.httpVersionMinor === 0;

/**
 * The 400 for a request whose framing is faulty, or undefined when it is sound: more than one Host,
 * or none in HTTP/1.1 (RFC 9112 §3.2); Transfer-Encoding in HTTP/1.0, which "MUST be treated as if
 * the framing is faulty" (§6.1), Content-Length or not.
 */
export const framingFault = (request: IncomingMessage): APIGatewayProxyResult | undefined => {
  const hosts = hostValues(request).length;
  if (hosts > 1) return closing(validationFailure({ host: HOST_REPEATED }));
  if (hosts === 0 && !isHttp10(request)) return closing(validationFailure({ host: HOST_REQUIRED }));
  if (isHttp10(request) && request.headers['transfer-encoding'] !== undefined) {
    return closing(validationFailure({ request: HTTP10_TRANSFER_ENCODING }));
  }
  return undefined;
};

/** An `Expect` other than 100-continue (RFC 9110 §10.1.1): 417, as JSON. */
export const expectationFailed = (): APIGatewayProxyResult => closing(failure(417, EXPECTATION_FAILED));
