import type { IncomingMessage } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import {
  AUTHORIZER,
  FUNCTION_TIMEOUT_SECONDS,
  functionTimeoutMs,
  requiresAuth,
  UNROUTED_METHODS,
} from '../shared/api/routes';
import { failure, GATEWAY_BODY_TOO_LARGE_MESSAGE } from '../shared/http/responses';
import { accessDenied, authorizerFailure, isAllowed, toAuthorizerEvent } from './authorizer-gateway';
import { installCallLog } from './call-log';
import { keepBookServicesPerFunction } from './function-services';
import { exceedsInvokePayload, lambdaContext, toProxyEvent } from './gateway';
import type { ResourceMatch, RouteMatch } from './route-matching';
import { runAsFunction } from './running-function';
import { invokeStreaming, isStreamingHandler, type StreamedProxyResult } from './streaming-response';

// The functions run here record their DynamoDB calls when DYNAMODB_CALL_LOG names a file (npm run test:permissions).
installCallLog();

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

export interface InvokerOptions {
  /** Project root the route table's handler paths are relative to. */
  root: string;
  /** Let GET routes through without credentials, like the stack's `publicReads` option. */
  publicReads: boolean;
  /** Realm of the fallback challenge. */
  realm: string;
  /** How the gateway gives its own answer (here, the 401 of a Deny) with its standard and CORS headers. */
  answer: (request: IncomingMessage, result: APIGatewayProxyResult) => APIGatewayProxyResult;
  /** The stage every path starts with (LOCAL_STAGE), as on an execute-api URL; none: paths start with the route. */
  stage?: string;
}

/**
 * Runs a request's functions and gives their answer (a Deny's being the gateway's): a route's, or
 * for a method the path has no route for, UNROUTED_METHODS' (no authorizer, as on the stack).
 */
export type Invoke = (
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  match: RouteMatch | ResourceMatch,
) => Promise<APIGatewayProxyResult | StreamedProxyResult>;

/**
 * The functions as API Gateway invokes them: the authorizer (where the route needs it), then the
 * route's handler, with the events it would send. Each handler module is imported once and kept,
 * as a warm Lambda container keeps it.
 */
export const functionInvoker = ({ root, publicReads, realm, answer, stage }: InvokerOptions): Invoke => {
  const modules = new Map<string, Promise<unknown>>();
  const loadHandler = <T>(entry: string): Promise<T> => {
    let handler = modules.get(entry);
    if (!handler) {
      handler = keepBookServicesPerFunction(root)
        .then(() => import(pathToFileURL(resolve(root, entry)).href))
        .then((m) => m.handler);
      modules.set(entry, handler);
    }
    return handler as Promise<T>;
  };

  return async (request, url, body, match) => {
    const event = toProxyEvent(request, url, body, match, stage);
    const tooLarge = () => answer(request, failure(413, GATEWAY_BODY_TOO_LARGE_MESSAGE));
    if (!('route' in match)) {
      if (exceedsInvokePayload(event)) return tooLarge();
      const handler = await loadHandler<ProxyHandler>(UNROUTED_METHODS.entry);
      const context = lambdaContext(
        UNROUTED_METHODS.name,
        event.requestContext.requestId,
        FUNCTION_TIMEOUT_SECONDS * 1_000,
      );
      return runAsFunction(UNROUTED_METHODS.name, () => handler(event, context));
    }
    if (requiresAuth(match.route, publicReads)) {
      const authorize = await loadHandler<AuthorizerHandler>(AUTHORIZER.entry);
      const authorizerEvent = toAuthorizerEvent(event);
      const context = lambdaContext(AUTHORIZER.name, event.requestContext.requestId);
      const result = await runAsFunction(AUTHORIZER.name, () => authorize(authorizerEvent, context)).catch(
        (error: unknown) => error as Error,
      );
      if (result instanceof Error) {
        console.error('authorizer failed', result);
        return answer(request, authorizerFailure());
      }
      if (!isAllowed(result, authorizerEvent.methodArn)) return answer(request, accessDenied(result, realm));
      event.requestContext.authorizer = { ...result.context, principalId: result.principalId };
    }
    // After the authorizer, whose event has no body: API Gateway's 413 when the function cannot be invoked.
    if (exceedsInvokePayload(event)) return tooLarge();
    const handler = await loadHandler<ProxyHandler>(match.route.entry);
    const context = lambdaContext(match.route.name, event.requestContext.requestId, functionTimeoutMs(match.route));
    return runAsFunction(match.route.name, () =>
      isStreamingHandler(handler) ? invokeStreaming(handler, event, context) : handler(event, context),
    );
  };
};
