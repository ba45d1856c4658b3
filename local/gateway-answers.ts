import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { corsHeaders } from '../shared/http/cors';
import { GATEWAY_HEADERS } from '../shared/http/standard-headers';

export interface GatewayAnswers {
  /**
   * An answer the gateway gives itself (the stack's gateway responses): the standard headers and,
   * for a listed origin, CORS, as on every function's answer.
   */
  answer: (request: IncomingMessage, result: APIGatewayProxyResult) => APIGatewayProxyResult;
}

/** The local server's own answers, as API Gateway gives them, for the configured CORS origins. */
export const gatewayAnswers = (allowedOrigins: readonly string[]): GatewayAnswers => {
  const answer = (request: IncomingMessage, result: APIGatewayProxyResult): APIGatewayProxyResult => ({
    ...result,
    headers: { ...GATEWAY_HEADERS, ...result.headers, ...corsHeaders(request.headers.origin, allowedOrigins) },
  });
  return { answer };
};
