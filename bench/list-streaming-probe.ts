import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lambdaContext } from '../local/gateway';
import { invokeStreaming, isStreamingHandler } from '../local/streaming-response';
import { functionTimeoutMs, ROUTES } from '../shared/api/routes';
import { PROJECT_ROOT } from './bundles';
import { proxyEvent } from './events';

/**
 * One whole-catalogue list in this fresh process, through the list route's handler as Lambda
 * streams it, with the time to the first body byte, the total time and the rise of this process's
 * resident memory. Run by bench/list-streaming.ts as `node --import tsx bench/list-streaming-probe.ts`
 * with DYNAMODB_ENDPOINT and BOOKS_TABLE_NAME set; prints one JSON line.
 */

const resident = () => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;
// Let in as every bench request is: a list without an authorized user is refused (403) before it reads.
const event = (target: string) => {
  const [path, search] = target.split('?');
  return proxyEvent({ method: 'GET', path: path as string, query: Object.fromEntries(new URLSearchParams(search)) });
};
const LIST_ROUTE = ROUTES.find((route) => route.name === 'ListBooks') as (typeof ROUTES)[number];
const context = () => lambdaContext('ListBooks', randomUUID(), functionTimeoutMs(LIST_ROUTE));

// The list's handler file from the route table, loaded as the local server loads it.
const { handler } = await import(pathToFileURL(resolve(PROJECT_ROOT, LIST_ROUTE.entry)).href);
if (!isStreamingHandler(handler)) throw new Error(`${LIST_ROUTE.entry} does not stream`);

/** The response's status, first-byte and total times, and its body's size; the body itself is dropped. */
const run = async (target: string) => {
  const started = performance.now();
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
console.log(JSON.stringify({ ...figures, residentRiseBytes: peak - before }));
process.exit(0);
