import type { Readable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/** A REST proxy event after the middy stack: lower-case headers, objects for parameters, parsed body. */
export type HttpEvent = Omit<APIGatewayProxyEvent, 'body' | 'pathParameters' | 'queryStringParameters'> & {
  body: unknown;
  pathParameters: Record<string, string | undefined>;
  queryStringParameters: Record<string, string | undefined>;
};

export type HttpResponse = APIGatewayProxyResult;

/**
 * A response of a streaming route (Lambda response streaming): the status and headers go first,
 * then the body as the stream produces it. A string body is sent whole.
 */
export type StreamedHttpResponse = Omit<HttpResponse, 'body'> & { body: string | Readable };
