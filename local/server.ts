import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { AUTHORIZER, requiresAuth } from '../shared/api/routes';
import { DEFAULTS } from '../shared/config';
import { empty, failure, internalError } from '../shared/http/responses';
import { accessDenied, isAllowed, toAuthorizerEvent } from './authorizer-gateway';
import {
  GATEWAY_MAX_BODY_BYTES,
  GATEWAY_MAX_HEADER_BYTES,
  headerBytes,
  lambdaContext,
  toProxyEvent,
  writeResult,
} from './gateway';
import { matchRoute } from './route-matching';

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

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

/**
 * An HTTP server that behaves like the deployed REST API: it resolves routes from the route table,
 * answers unknown routes and oversized payloads itself, and invokes the very handler modules that
 * Lambda runs with the proxy event API Gateway would build.
 */
export const createLocalServer = (options: LocalServerOptions = {}): Server => {
  const root = options.root ?? process.cwd();
  const modules = new Map<string, Promise<unknown>>();
  const loadHandler = <T>(entry: string): Promise<T> => {
    let handler = modules.get(entry);
    if (!handler) {
      handler = import(pathToFileURL(resolve(root, entry)).href).then((m) => m.handler);
      modules.set(entry, handler);
    }
    return handler as Promise<T>;
  };

  const serve = async (request: IncomingMessage): Promise<APIGatewayProxyResult> => {
    await options.ready;
    if (headerBytes(request) > GATEWAY_MAX_HEADER_BYTES) {
      request.resume();
      return failure(431, 'Request headers are too large');
    }
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
    if (requiresAuth(match.route, options.publicReads ?? false)) {
      const authorize = await loadHandler<AuthorizerHandler>(AUTHORIZER.entry);
      const authorizerEvent = toAuthorizerEvent(event);
      const result = await authorize(authorizerEvent, lambdaContext(AUTHORIZER.name, event.requestContext.requestId));
      if (!isAllowed(result, authorizerEvent.methodArn)) return accessDenied(result, options.realm ?? DEFAULTS.realm);
      event.requestContext.authorizer = { ...result.context, principalId: result.principalId };
    }
    const handler = await loadHandler<ProxyHandler>(match.route.entry);
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
