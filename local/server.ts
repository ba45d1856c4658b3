import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { matchRoute, type Route } from '../infra/routes';
import { failure, internalError } from '../shared/http/responses';
import { GATEWAY_MAX_BODY_BYTES, lambdaContext, toProxyEvent, writeResult } from './gateway';

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface LocalServerOptions {
  /** Project root the route table's handler paths are relative to. */
  root?: string;
  /** Requests wait for this (the database starting) before they are served. */
  ready?: Promise<void>;
  /** Print one line per request. */
  log?: (line: string) => void;
}

class BodyTooLargeError extends Error {}

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
    request.once('error', fail);
  });

const empty = (statusCode: number): APIGatewayProxyResult => ({ statusCode, body: '' });

/**
 * An HTTP server that behaves like the deployed REST API: it resolves routes from the route table,
 * answers unknown routes and oversized payloads itself, and invokes the very handler modules that
 * Lambda runs with the proxy event API Gateway would build.
 */
export const createLocalServer = (options: LocalServerOptions = {}): Server => {
  const root = options.root ?? process.cwd();
  const handlers = new Map<string, Promise<ProxyHandler>>();
  const loadHandler = (route: Route) => {
    let handler = handlers.get(route.entry);
    if (!handler) {
      handler = import(pathToFileURL(resolve(root, route.entry)).href).then((m) => m.handler as ProxyHandler);
      handlers.set(route.entry, handler);
    }
    return handler;
  };

  const serve = async (request: IncomingMessage): Promise<APIGatewayProxyResult> => {
    await options.ready;
    const url = new URL(request.url ?? '/', 'http://localhost');
    const match = matchRoute(request.method ?? '', url.pathname);
    if (!match) {
      request.resume();
      return empty(404);
    }
    let body: Buffer;
    try {
      body = await readBody(request);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return failure(413, 'Request body is too large');
      throw error;
    }
    const event = toProxyEvent(request, url, body, match);
    const handler = await loadHandler(match.route);
    const context = lambdaContext(match.route.name, event.requestContext.requestId);
    return handler(event, context);
  };

  return createServer((request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now();
    serve(request)
      .catch((error: unknown) => {
        // What API Gateway's DEFAULT_5XX response gives when a function fails outright.
        console.error(`[${randomUUID()}] handler failed`, error);
        return internalError();
      })
      .then((result) => {
        writeResult(response, result);
        options.log?.(
          `${request.method} ${request.url} ${result.statusCode} ${Math.round(performance.now() - started)}ms`,
        );
      });
  });
};
