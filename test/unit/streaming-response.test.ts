import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { lambdaContext, proxyEventFor } from '../../local/gateway';
import {
  bufferedHandler,
  collectStreamedResult,
  HTTP_INTEGRATION_CONTENT_TYPE,
  invokeStreaming,
  isStreamingHandler,
  LambdaResponseStream,
  MAX_PRELUDE_BYTES,
  MissingPreludeError,
} from '../../local/streaming-response';
import { ROUTES } from '../../shared/api/routes';
import { httpHandler } from '../../shared/http/http-handler';
import { streamedJsonArray } from '../../shared/http/streamed-json-array';

/**
 * The local half of Lambda response streaming: the `awslambda` global a streaming handler is built
 * with, and the gateway reading the status prelude and passing the rest on, as API Gateway's STREAM
 * transfer mode does.
 */
const event = {} as APIGatewayProxyEvent;
const context = (): Context => lambdaContext('ListBooks', 'test');

type Body = (stream: LambdaResponseStream) => unknown;
const streaming = (body: Body) =>
  awslambda.streamifyResponse(async (_event: unknown, stream: unknown) => body(stream as LambdaResponseStream));
const withPrelude = (prelude: Record<string, unknown>, ...chunks: string[]) =>
  streaming(async (raw) => {
    const stream = awslambda.HttpResponseStream.from(raw, prelude) as unknown as LambdaResponseStream;
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
  });

describe('the awslambda global', () => {
  it('marks a wrapped handler as streaming, as Lambda’s runtime does; a plain handler is not', () => {
    expect(isStreamingHandler(streaming(() => undefined))).toBe(true);
    expect(isStreamingHandler(async () => ({ statusCode: 200 }))).toBe(false);
    expect(isStreamingHandler(undefined)).toBe(false);
  });

  it('writes the prelude as JSON and 8 NUL bytes ahead of the body, with the integration’s content type', async () => {
    let contentType = '';
    const bytes: Buffer[] = [];
    const handler = streaming(async (raw) => {
      const stream = awslambda.HttpResponseStream.from(raw, { statusCode: 201 }) as unknown as LambdaResponseStream;
      contentType = stream.contentType;
      stream.end('body');
    });
    const stream = (await import('../../local/streaming-response')).LambdaResponseStream;
    const raw = new stream();
    raw.on('data', (chunk) => bytes.push(Buffer.from(chunk)));
    await handler(event, raw as never, context());
    expect(contentType).toBe(HTTP_INTEGRATION_CONTENT_TYPE);
    expect(Buffer.concat(bytes)).toEqual(
      Buffer.concat([Buffer.from('{"statusCode":201}'), Buffer.alloc(8), Buffer.from('body')]),
    );
  });
});

describe('invokeStreaming (the gateway’s half)', () => {
  it('answers with the prelude’s status, headers, multi-value headers and cookies, then the body', async () => {
    const handler = withPrelude(
      { statusCode: 207, headers: { 'X-One': 'a' }, multiValueHeaders: { 'X-Two': ['b', 'c'] }, cookies: ['k=v'] },
      '[1,',
      '2]',
    );
    const result = await invokeStreaming(handler, event, context());
    expect(result).toMatchObject({
      statusCode: 207,
      headers: { 'X-One': 'a' },
      multiValueHeaders: { 'X-Two': ['b', 'c'] },
      cookies: ['k=v'],
    });
    expect((await collectStreamedResult(result)).body).toBe('[1,2]');
  });

  it('takes the first 8 NUL bytes as the end of the prelude, wherever the writes split it', async () => {
    const handler = streaming(async (stream) => {
      for (const part of ['{"status', 'Code":200}', '\0\0\0', '\0\0\0\0\0[', '\0]']) stream.write(part);
      stream.end();
    });
    const result = await invokeStreaming(handler, event, context());
    expect(result.statusCode).toBe(200);
    expect((await collectStreamedResult(result)).body).toBe('[\0]');
  });

  it('is the gateway’s 500 when the function fails or ends before its prelude, or sends none in 16 KB', async () => {
    await expect(
      invokeStreaming(
        streaming(() => Promise.reject(new Error('boom'))),
        event,
        context(),
      ),
    ).rejects.toThrow('boom');
    await expect(
      invokeStreaming(
        streaming((s) => s.end('no prelude')),
        event,
        context(),
      ),
    ).rejects.toBeInstanceOf(MissingPreludeError);
    const flood = streaming((s) => {
      s.write('x'.repeat(MAX_PRELUDE_BYTES + 1));
      s.end();
    });
    await expect(invokeStreaming(flood, event, context())).rejects.toThrow('16 KB');
    await expect(
      invokeStreaming(
        streaming((s) => s.end('{"statusCode":"ok"}\0\0\0\0\0\0\0\0')),
        event,
        context(),
      ),
    ).rejects.toThrow('statusCode');
  });

  it('cuts the body when the function fails after its prelude, so the transfer is seen incomplete', async () => {
    const handler = streaming(async (raw) => {
      const stream = awslambda.HttpResponseStream.from(raw, { statusCode: 200 }) as unknown as LambdaResponseStream;
      stream.write('[1,');
      await new Promise((done) => setTimeout(done, 10));
      throw new Error('gone');
    });
    const result = await invokeStreaming(handler, event, context());
    expect(result.statusCode).toBe(200);
    await expect(collectStreamedResult(result)).rejects.toThrow('gone');
  });

  it('through the service’s own stack, a list failing after its 200 errors Lambda’s response stream and fails the invocation', async () => {
    async function* failingBooks() {
      for (let id = 1; id <= 3_000; id++) {
        if (id === 2_000) throw new Error('DynamoDB went away');
        yield { id, title: 'x'.repeat(100) };
      }
    }
    const handler = httpHandler(
      async (_event, lambda) =>
        streamedJsonArray(failingBooks(), { route: 'ListBooks', remainingMs: () => lambda.getRemainingTimeInMillis() }),
      { streaming: true },
    ) as unknown as (event: unknown, stream: LambdaResponseStream, context: Context) => Promise<void>;
    // As Lambda's runtime calls it: the response stream it owns, and the invocation's outcome.
    const stream = new LambdaResponseStream();
    const received: Buffer[] = [];
    stream.on('data', (chunk) => received.push(Buffer.from(chunk)));
    const streamError = new Promise<Error>((done) => stream.once('error', done));
    const event = proxyEventFor({ method: 'GET', target: '/api/books' }) as APIGatewayProxyEvent;
    const authorized = {
      ...event,
      requestContext: { ...event.requestContext, authorizer: { user: 'u', role: 'reader' } },
    };
    const invocation = handler(authorized, stream, context());
    await expect(invocation).rejects.toThrow('DynamoDB went away');
    expect((await streamError).message).toBe('DynamoDB went away');
    expect(stream.destroyed).toBe(true);
    expect(stream.writableFinished).toBe(false); // never ended as if complete
    const text = Buffer.concat(received).toString('utf8');
    expect(text).toContain('"statusCode":200');
    expect(text.endsWith(']')).toBe(false);
  });

  it('bufferedHandler gives any handler the (event, context) → proxy result shape', async () => {
    expect(await bufferedHandler(withPrelude({ statusCode: 200 }, 'ok'))(event, context())).toEqual({
      statusCode: 200,
      headers: {},
      multiValueHeaders: {},
      cookies: [],
      body: 'ok',
    });
    const plain = async () => ({ statusCode: 204, body: '' });
    expect(await bufferedHandler(plain)(event, context())).toEqual({ statusCode: 204, body: '' });
  });
});

/**
 * Imported as the file loads, not inside a test: a handler brings in most of shared/, and constants
 * evaluated during a test would count, for mutation testing, as covered by that test alone.
 */
const STREAMING_CHECKED = ROUTES.filter((route) => route.name === 'ListBooks' || route.name === 'GetBook');
const handlers = new Map(
  await Promise.all(
    STREAMING_CHECKED.map(
      async (route) => [route.name, (await import(/* @vite-ignore */ `../../${route.entry}`)).handler] as const,
    ),
  ),
);

describe('the route table and the handlers agree on streaming', () => {
  it.each(STREAMING_CHECKED)('$name: streaming in the table exactly when its handler streams', (route) => {
    expect(isStreamingHandler(handlers.get(route.name))).toBe('streaming' in route && route.streaming === true);
  });
});
