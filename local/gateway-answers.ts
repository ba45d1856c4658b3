import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { corsHeaders, preflightHeaders } from '../shared/http/cors';
import { methodNotAllowed } from '../shared/http/responses';
import { GATEWAY_HEADERS } from '../shared/http/standard-headers';

export interface GatewayAnswers {
  /**
   * An answer the gateway gives itself (the stack's gateway responses and MOCK methods): the
   * standard headers and, for a listed origin, CORS, as on every function's answer.
   */
  answer: (request: IncomingMessage, result: APIGatewayProxyResult) => APIGatewayProxyResult;
  /**
   * A known path asked with a method it has no route for (the stack's OPTIONS and ANY MOCK methods):
   * OPTIONS is 204 with `Allow` (and a preflight's answer), needing no credentials; any other is 405.
   */
  answerResource: (request: IncomingMessage, allow: string) => APIGatewayProxyResult;
}

/** The local server's own answers, as API Gateway gives them, for the configured CORS origins. */
export const gatewayAnswers = (allowedOrigins: readonly string[]): GatewayAnswers => {
  const answer = (request: IncomingMessage, result: APIGatewayProxyResult): APIGatewayProxyResult => ({
    ...result,
    headers: { ...GATEWAY_HEADERS, ...result.headers, ...corsHeaders(request.headers.origin, allowedOrigins) },
  });
  const answerResource = (request: IncomingMessage, allow: string): APIGatewayProxyResult => {
    if (request.method !== 'OPTIONS') return answer(request, methodNotAllowed(allow));
    return {
      statusCode: 204,
      headers: { ...GATEWAY_HEADERS, Allow: allow, ...preflightHeaders(request.headers.origin, allowedOrigins, allow) },
      body: '',
    };
  };
  return { answer, answerResource };
};
