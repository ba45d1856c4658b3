import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyResult } from 'aws-lambda';
import pLimit from 'p-limit';
import { DEFAULTS, readSetting } from '../shared/config';
import { isValidHostHeader } from '../shared/http/origin';
import {
  empty,
  failure,
  GATEWAY_BODY_TOO_LARGE_MESSAGE,
  internalError,
  validationFailure,
} from '../shared/http/responses';
import { GATEWAY_HEADERS } from '../shared/http/standard-headers';
import { expectationFailed, framingFault, hostValues } from './framing';
import { GATEWAY_MAX_BODY_BYTES, GATEWAY_MAX_HEADER_BYTES, headerBytes, writeResult } from './gateway';
import { gatewayAnswers } from './gateway-answers';
import { functionInvoker } from './invocation';
import { matchResource, matchRoute } from './route-matching';
import { STORAGE_REFUSED_MESSAGE, STORAGE_RETRY_AFTER_SECONDS, type StorageGuard } from './storage-guard';
import type { StreamedProxyResult } from './streaming-response';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const storageRefused = () =>
  failure(503, STORAGE_REFUSED_MESSAGE, { 'Retry-After': String(STORAGE_RETRY_AFTER_SECONDS) });

export interface LocalServerOptions {
  /** Project root the route table's handler paths are relative to. */
  root?: string;
  /** Let GET routes through without credentials, like the stack's `publicReads` option. */
  publicReads?: boolean;
  /** Realm of the fallback challenge. */
  realm?: string;
  /** Requests wait for this (the database starting) before they are served. */
  ready?: Promise<void>;
  /** Print one line per request. */
  log?: (line: string) => void;
  /** Browser origins CORS lets in (the stack's `corsAllowedOrigins`); default: CORS_ALLOWED_ORIGINS. */
  corsAllowedOrigins?: readonly string[];
  /** The guard of npm start's own database, once it runs: writes it refuses get 503. */
  storageGuard?: () => StorageGuard | undefined;
  /** The connection limits; the defaults are LOCAL_SERVER_LIMITS. */
  limits?: Partial<LocalServerLimits>;
  /**
   * A stage every path must start with (`/prod/api/books`), as on an execute-api URL, so a front that
   * adds it (a CloudFront origin path) can be tried locally; none: paths start with the route.
   */
  stage?: string;
}

/** How long a client may take, and how many may be connected at once (docs/operations.md). */
export interface LocalServerLimits {
  /** From connection (or the previous request) to the end of the request's headers. */
  headersTimeoutMs: number;
  /** From connection to the last byte of the body: a stalled upload is answered 408 and dropped. */
  requestTimeoutMs: number;
  /** Connections open at once; more are closed as they arrive. */
  maxConnections: number;
  /**
   * Function invocations (authorizer and handler) run at once; further requests wait for a free one
   * before their function's clock starts. On Lambda every invocation has a container of its own; here
   * they share one process and one Dynoxide, and without a bound a burst of requests makes
   * them all wait on each other until they time out.
   */
  maxConcurrentInvocations: number;
}

/**
 * API Gateway gives a whole request 29 s at most (its integration timeout) and keeps no connection
 * waiting for a slow client; these keep a stalled or half-sent request from holding memory and a
 * connection for minutes, as Node's defaults (60 s for headers, 300 s for the request) would.
 */
const LOCAL_SERVER_LIMITS: LocalServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 512,
  maxConcurrentInvocations: 32,
};

class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/** The client closed the connection, or the server dropped it for its time limit, before the body ended. */
class RequestAbortedError extends Error {
  override readonly name = 'RequestAbortedError';
}

const readBody = (request: IncomingMessage): Promise<Buffer> =>
  new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > GATEWAY_MAX_BODY_BYTES) {
        request.removeAllListeners('data');
        request.resume();
        fail(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    });
    request.once('end', () => done(Buffer.concat(chunks)));
    // A request's errors are its connection's (reset, aborted, dropped for its time limit); after
    // 'end' these change nothing, before it the body will never be complete.
    request.once('error', () => fail(new RequestAbortedError()));
    request.once('close', () => fail(new RequestAbortedError()));
  });

/**
 * The request target as a path and query. Node passes the request line's target as sent: `//`,
 * `*` or an absolute URL are not paths a relative URL parser takes; anything that does not parse
 * is undefined (the gateway's 404, as for any path it has no route for).
 */
const requestTarget = (target: string | undefined): URL | undefined => {
  if (!target) return undefined;
  try {
    const url = target.startsWith('/') ? new URL(`http://gateway${target}`) : new URL(target);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
};

/** The target past its stage (`/prod/api/books` → `/api/books`); undefined when it does not name the stage. */
const pastStage = (url: URL | undefined, stage: string | undefined): URL | undefined => {
  if (!url || !stage) return url;
  if (!url.pathname.startsWith(`/${stage}/`)) return undefined;
  url.pathname = url.pathname.slice(stage.length + 1);
  return url;
};

const MALFORMED_HOST = 'Host must be a host name or IP address, optionally with a port';

/**
 * Writes a result; a result that cannot be written (a header value Node refuses) becomes the logged
 * generic 500 instead, and a response that broke off after its headers ends the connection. Never a
 * throw: a bad response must not take the process down.
 */
const writeSafely = (response: ServerResponse, result: APIGatewayProxyResult | StreamedProxyResult): number => {
  try {
    writeResult(response, result);
    return result.statusCode;
  } catch (error) {
    console.error(`[${randomUUID()}] response could not be written`, error);
    if (response.headersSent) {
      response.destroy();
      return result.statusCode;
    }
    for (const name of response.getHeaderNames()) response.removeHeader(name);
    const fallback = internalError();
    writeResult(response, { ...fallback, headers: { ...GATEWAY_HEADERS, ...fallback.headers } });
    return 500;
  }
};

/**
 * What Node's parser refused before any handler saw the request (a control character in a header,
 * a malformed request line, headers past Node's own 16 KiB, a request past its time limit), in the
 * contract's JSON shapes rather than Node's bare status lines; the connection is closed after it.
 */
const answerUnparsable = (error: NodeJS.ErrnoException, socket: Duplex) => {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const result =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? failure(431, 'Request headers are too large')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? failure(408, 'The request did not arrive in time')
        : validationFailure({ request: 'The request is not valid HTTP/1.1' });
  const head = [
    `HTTP/1.1 ${result.statusCode} ${STATUS_CODES[result.statusCode]}`,
    'Content-Type: application/json',
    ...Object.entries(GATEWAY_HEADERS).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(result.body)}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${result.body}`);
};

/**
 * An HTTP server that behaves like the deployed REST API: it resolves routes from the route table,
 * answers unknown routes, malformed hosts and oversized payloads itself, and invokes the very
 * handler modules that Lambda runs with the proxy event API Gateway would build.
 */
export const createLocalServer = (options: LocalServerOptions = {}): Server => {
  const limits = { ...LOCAL_SERVER_LIMITS, ...options.limits };
  const invocation = pLimit(limits.maxConcurrentInvocations);
  const faultyConnections = new WeakSet<object>();
  const { answer: gatewayAnswer } = gatewayAnswers(options.corsAllowedOrigins ?? readSetting('corsAllowedOrigins'));
  const invoke = functionInvoker({
    root: options.root ?? process.cwd(),
    publicReads: options.publicReads ?? false,
    realm: options.realm ?? DEFAULTS.realm,
    answer: gatewayAnswer,
    ...(options.stage && { stage: options.stage }),
  });

  const serve = async (request: IncomingMessage): Promise<APIGatewayProxyResult | StreamedProxyResult> => {
    await options.ready;
    if (headerBytes(request) > GATEWAY_MAX_HEADER_BYTES) {
      request.resume();
      return gatewayAnswer(request, failure(431, 'Request headers are too large'));
    }
    // Links are built on the server's own origin, never on Host; a malformed one is still refused,
    // as a gateway cannot route it (on AWS such a request never reaches the API).
    if (!hostValues(request).every((host) => isValidHostHeader(host))) {
      request.resume();
      return gatewayAnswer(request, validationFailure({ host: MALFORMED_HOST }));
    }
    const url = pastStage(requestTarget(request.url), options.stage);
    const method = request.method ?? '';
    // A known path's other methods (OPTIONS included) go to UNROUTED_METHODS, as on the stack.
    const match = url && (matchRoute(method, url.pathname) ?? matchResource(method, url.pathname));
    if (!url || !match) {
      request.resume();
      return gatewayAnswer(request, empty(404));
    }
    let body: Buffer;
    try {
      body = await readBody(request);
    } catch (error) {
      if (error instanceof BodyTooLargeError)
        return gatewayAnswer(request, failure(413, GATEWAY_BODY_TOO_LARGE_MESSAGE));
      throw error;
    }
    const guard = READ_METHODS.has(method) ? undefined : options.storageGuard?.();
    if (guard?.refusal()) return gatewayAnswer(request, storageRefused());
    // A write the database failed because its disk filled or its file went: the same 503, not a 500.
    const refusedAfterFailure = () => guard?.refusalAfterFailure() && gatewayAnswer(request, storageRefused());
    // Checked again once the write has its slot, and before it is acknowledged: a write that waited
    // (or ran) while the data file went is lost with the file, so it must not be answered as stored.
    const refusedNow = () => guard?.refusal() && gatewayAnswer(request, storageRefused());
    const result = await invocation(async () => refusedNow() || (await invoke(request, url, body, match))).catch(
      (error: unknown) => {
        const refused = refusedAfterFailure();
        if (refused) return refused;
        throw error;
      },
    );
    return (result.statusCode >= 500 && refusedAfterFailure()) || refusedNow() || result;
  };

  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often Node looks for requests past those limits (30 s by default, longer than the limits).
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
      // framingFault answers a missing Host itself, with the contract's JSON rather than Node's bare 400.
      requireHostHeader: false,
    },
    (request: IncomingMessage, response: ServerResponse) => {
      // Requests Node parsed after one with faulty framing (pipelined in the same bytes) are never served.
      if (faultyConnections.has(request.socket)) return;
      const faulty = framingFault(request);
      if (faulty) {
        faultyConnections.add(request.socket);
        request.resume();
        writeSafely(response, faulty);
        return;
      }
      const started = performance.now();
      serve(request)
        .catch((error: unknown) => {
          if (error instanceof RequestAbortedError) return undefined; // nobody left to answer
          // What API Gateway's DEFAULT_5XX response gives when a function fails outright.
          console.error(`[${randomUUID()}] handler failed`, error);
          return gatewayAnswer(request, internalError());
        })
        .then((result) => {
          if (!result) return;
          const status = writeSafely(response, result);
          options.log?.(`${request.method} ${request.url} ${status} ${Math.round(performance.now() - started)}ms`);
        })
        .catch((error: unknown) => console.error(`[${randomUUID()}] request could not be answered`, error));
    },
  );
  server.maxConnections = limits.maxConnections;
  server.on('clientError', answerUnparsable);
  // Without a listener Node answers an unknown expectation itself, with an empty 417.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    writeSafely(response, expectationFailed());
  });
  return server;
};
