import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { lambdaContext, proxyEventFor } from '../local/gateway';
import { invokeStreaming, isStreamingHandler } from '../local/streaming-response';
import { functionTimeoutMs, ROUTES } from '../shared/api/routes';
import { PROJECT_ROOT } from './bundles';

/**
 * One whole-catalogue list in this fresh process, streamed (functions/books/list.ts as Lambda
 * streams it) or buffered (bench/alternatives/buffered-list.ts), with the time to the first body
 * byte, the total time and the rise of this process's resident memory. Run by
 * bench/list-streaming.ts as `node --import tsx bench/list-streaming-probe.ts <streamed|buffered>`
 * with DYNAMODB_ENDPOINT and BOOKS_TABLE_NAME set; prints one JSON line.
 */
const mode = process.argv[2];
if (mode !== 'streamed' && mode !== 'buffered') throw new Error('usage: list-streaming-probe.ts streamed|buffered');

const resident = () => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;
const event = (target: string) =>
  proxyEventFor({ method: 'GET', target }) as NonNullable<ReturnType<typeof proxyEventFor>>;
const LIST_ROUTE = ROUTES.find((route) => route.name === 'ListBooks') as (typeof ROUTES)[number];
const context = () => lambdaContext('ListBooks', randomUUID(), functionTimeoutMs(LIST_ROUTE));

// The list's handler file from the route table, loaded as the local server loads it; the baseline beside it.
const file = mode === 'streamed' ? LIST_ROUTE.entry : 'bench/alternatives/buffered-list.ts';
const { handler } = await import(pathToFileURL(resolve(PROJECT_ROOT, file)).href);

/** The response's status, first-byte and total times, and its body's size; the body itself is dropped. */
const run = async (target: string) => {
  const started = performance.now();
  if (!isStreamingHandler(handler)) {
    const result = (await (handler as (e: unknown, c: unknown) => Promise<APIGatewayProxyResult>)(
      event(target),
      context(),
    )) as APIGatewayProxyResult;
    const totalMs = performance.now() - started;
    return { status: result.statusCode, firstByteMs: totalMs, totalMs, bytes: Buffer.byteLength(result.body) };
  }
  const result = await invokeStreaming(handler, event(target), context());
  let firstByteMs: number | undefined;
  let bytes = 0;
  for await (const chunk of result.body) {
    firstByteMs ??= performance.now() - started;
    bytes += Buffer.byteLength(chunk as string | Uint8Array);
  }
  const totalMs = performance.now() - started;
  return { status: result.statusCode, firstByteMs: firstByteMs ?? totalMs, totalMs, bytes };
};

await run('/api/books?limit=1'); // loads the modules and the SDK client: the list's figures are its own
const before = resident();
let peak = before;
const sampler = setInterval(() => {
  peak = Math.max(peak, resident());
}, 5);
const figures = await run('/api/books');
clearInterval(sampler);
peak = Math.max(peak, resident());
console.log(JSON.stringify({ mode, ...figures, residentRiseBytes: peak - before }));
process.exit(0);
