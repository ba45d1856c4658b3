import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/** A REST proxy event after the middy stack: lower-case headers, objects for parameters, parsed body. */
export type HttpEvent = Omit<APIGatewayProxyEvent, 'body' | 'pathParameters' | 'queryStringParameters'> & {
  body: unknown;
  pathParameters: Record<string, string | undefined>;
  queryStringParameters: Record<string, string | undefined>;
};

export type HttpResponse = APIGatewayProxyResult;
