import type { ServerResponse } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/**
 * Lambda response streaming on this machine. Lambda's Node.js runtime gives every function the
 * `awslambda` global: `streamifyResponse` marks a handler as streaming, and
 * `HttpResponseStream.from` writes the HTTP integration's prelude (the status and headers as JSON,
 * then 8 NUL bytes) ahead of the body. API Gateway, in the STREAM transfer mode, reads that prelude,
 * answers with its status and headers and passes the rest on as it arrives. Importing this module
 * installs the same global (the handler modules need it as they load) and gives the local server
 * the gateway's half. Written here because the runtime's own implementation ships only inside
 * Lambda's images, and no package provides both halves.
 */

/** The property Lambda's runtime looks for on a handler wrapped by `awslambda.streamifyResponse`. */
const STREAMING_MARK = Symbol.for('aws.lambda.runtime.handler.streaming');
const STREAM_RESPONSE = 'response';
export const HTTP_INTEGRATION_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
const PRELUDE_DELIMITER = Buffer.alloc(8);
/** API Gateway wants the prelude and its delimiter within the stream's first 16 KB. */
export const MAX_PRELUDE_BYTES = 16 * 1024;

/**
 * The writable a streaming handler is given: a stream with a content type, as the runtime's. Text
 * passes through as written (object mode), so it reaches the socket without a Buffer per chunk
 * waiting for the garbage collector, as the runtime writes to its own connection.
 */
export class LambdaResponseStream extends PassThrough {
  contentType = 'application/octet-stream';
  constructor() {
    super({ objectMode: true, highWaterMark: 4 });
  }
  setContentType(contentType: string) {
    this.contentType = contentType;
  }
}

export type StreamingHandler = (event: APIGatewayProxyEvent, stream: LambdaResponseStream, context: Context) => unknown;
type BufferedHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

const lambdaStreamingGlobal = {
  streamifyResponse: <T extends object>(handler: T) => Object.assign(handler, { [STREAMING_MARK]: STREAM_RESPONSE }),
  HttpResponseStream: {
    from(stream: LambdaResponseStream, prelude: Record<string, unknown>) {
      stream.setContentType(HTTP_INTEGRATION_CONTENT_TYPE);
      // JSON text never holds a NUL byte (JSON.stringify escapes it), so the delimiter is unambiguous.
      stream.write(JSON.stringify(prelude));
      stream.write(PRELUDE_DELIMITER);
      return stream;
    },
  },
};
// The AWS SDK keeps its own per-invocation store on the same global, so it is extended, not replaced.
const runtime = globalThis as unknown as { awslambda?: Record<string, unknown> };
runtime.awslambda ??= {};
runtime.awslambda.streamifyResponse ??= lambdaStreamingGlobal.streamifyResponse;
runtime.awslambda.HttpResponseStream ??= lambdaStreamingGlobal.HttpResponseStream;

export const isStreamingHandler = (handler: unknown): handler is StreamingHandler =>
  typeof handler === 'function' && (handler as unknown as Record<symbol, unknown>)[STREAMING_MARK] === STREAM_RESPONSE;

/** A streamed integration response: status and headers from the prelude, the body still arriving. */
export interface StreamedProxyResult {
  statusCode: number;
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  cookies: string[];
  body: Readable;
}

export const isStreamedResult = (result: unknown): result is StreamedProxyResult =>
  typeof result === 'object' && result !== null && typeof (result as { body?: unknown }).body === 'object';

export class MissingPreludeError extends Error {
  override readonly name = 'MissingPreludeError';
}

const parsePrelude = (text: string): Omit<StreamedProxyResult, 'body'> => {
  let prelude: Record<string, unknown>;
  try {
    prelude = JSON.parse(text);
  } catch (error) {
    throw new MissingPreludeError('The stream’s prelude is not JSON', { cause: error });
  }
  const statusCode = Number(prelude.statusCode ?? 200);
  if (!Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) {
    throw new MissingPreludeError(`The stream’s prelude has no valid statusCode: ${prelude.statusCode}`);
  }
  return {
    statusCode,
    headers: (prelude.headers ?? {}) as Record<string, string>,
    multiValueHeaders: (prelude.multiValueHeaders ?? {}) as Record<string, string[]>,
    cookies: (prelude.cookies ?? []) as string[],
  };
};

/**
 * Invokes a streaming handler as API Gateway's STREAM transfer mode does: resolves once the prelude
 * has arrived, with the body still flowing; rejects (the gateway's 500) if the handler fails or
 * ends before it, or sends no prelude within MAX_PRELUDE_BYTES. A failure after the prelude
 * destroys the body with the error, so the connection is cut rather than ended cleanly.
 */
export const invokeStreaming = (
  handler: StreamingHandler,
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<StreamedProxyResult> => {
  const stream = new LambdaResponseStream();
  const finished = Promise.resolve().then(() => handler(event, stream, context));
  return new Promise((resolve, reject) => {
    let settled = false;
    let received = Buffer.alloc(0);
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      stream.off('data', onData);
      stream.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer | Uint8Array | string) => {
      received = Buffer.concat([received, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]);
      const end = received.indexOf(PRELUDE_DELIMITER);
      if (end < 0 || end + PRELUDE_DELIMITER.length > MAX_PRELUDE_BYTES) {
        if (received.length > MAX_PRELUDE_BYTES)
          fail(new MissingPreludeError('No prelude in the stream’s first 16 KB'));
        return;
      }
      stream.off('data', onData);
      stream.pause();
      const rest = received.subarray(end + PRELUDE_DELIMITER.length);
      if (rest.length > 0) stream.unshift(rest);
      try {
        const head = parsePrelude(received.subarray(0, end).toString('utf8'));
        settled = true;
        resolve({ ...head, body: stream });
      } catch (error) {
        fail(error);
      }
    };
    stream.on('data', onData);
    stream.once('end', () => fail(new MissingPreludeError('The function ended its stream without a prelude')));
    finished.then(
      () => {
        // Lambda's runtime ends the stream when the handler returns, whatever it did with it.
        if (!stream.writableEnded) stream.end();
      },
      (error: unknown) => {
        if (!settled) fail(error);
        else stream.destroy(error as Error);
      },
    );
  });
};

/** The whole of a streamed result as a buffered one (tests, the bench's and sample events' callers). */
export const collectStreamedResult = async (result: StreamedProxyResult): Promise<APIGatewayProxyResult> => {
  const chunks: Buffer[] = [];
  for await (const chunk of result.body) chunks.push(Buffer.from(chunk as string | Uint8Array));
  const { body: _body, ...head } = result;
  return { ...head, body: Buffer.concat(chunks).toString('utf8') };
};

/**
 * Any handler as a `(event, context) => proxy result` function: a streaming one is invoked as the
 * gateway does and its body collected. For callers that want the whole response, not its timing.
 */
export const bufferedHandler =
  (handler: unknown) =>
  async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> =>
    isStreamingHandler(handler)
      ? collectStreamedResult(await invokeStreaming(handler, event, context))
      : (handler as BufferedHandler)(event, context);

/**
 * Writes a streamed result as API Gateway does: status and headers, then the body as it arrives, in
 * chunked transfer (no Content-Length), at the pace the client reads. A body that fails midway cuts
 * the connection, so the client sees an incomplete transfer.
 */
export const writeStreamedResult = async (response: ServerResponse, result: StreamedProxyResult): Promise<void> => {
  for (const [name, value] of Object.entries(result.headers)) response.setHeader(name, String(value));
  for (const [name, values] of Object.entries(result.multiValueHeaders)) response.setHeader(name, values.map(String));
  if (result.cookies.length > 0) response.setHeader('Set-Cookie', result.cookies);
  response.statusCode = result.statusCode;
  await pipeline(result.body, response);
};
