import type { MiddlewareObj, Request } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationError } from '../books/errors';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from './errors';
import type { HttpEvent, HttpResponse } from './types';

export const MAX_BODY_BYTES = 64 * 1024;

const PARSER_PACKAGE = '@middy/http-json-body-parser';

interface MiddyParserError extends Error {
  statusCode?: number;
  cause?: { package?: string };
}

const isParserError = (error: unknown): error is MiddyParserError =>
  error instanceof Error && (error as MiddyParserError).cause?.package === PARSER_PACKAGE;

/**
 * Body handling (docs/contract.md, "Request bodies"), checked in this order: size (413), media type
 * (415), JSON syntax (400 with `errors.body`). middy's parser does the parsing; this wrapper adds the size cap, lets a
 * request without a body through to validation (its "required" messages are clearer than a 415),
 * and turns the parser's errors, which it reports as 415 for both cases, into the contract's.
 */
export const jsonBody = (): MiddlewareObj<HttpEvent, HttpResponse> => {
  const parser = httpJsonBodyParser();
  return {
    before: async (request) => {
      const { body, isBase64Encoded } = request.event;
      if (body === null || body === undefined || body === '') {
        request.event.body = undefined;
        return;
      }
      if (typeof body === 'string' && Buffer.byteLength(body, isBase64Encoded ? 'base64' : 'utf8') > MAX_BODY_BYTES) {
        throw new PayloadTooLargeError(MAX_BODY_BYTES);
      }
      try {
        // The body is still the raw string API Gateway sent here, so the event is the parser's own type.
        await parser.before?.(request as unknown as Request<APIGatewayProxyEvent>);
      } catch (error) {
        if (!isParserError(error)) throw error;
        if (error.message === 'Unsupported Media Type') throw new UnsupportedMediaTypeError();
        throw new ValidationError({ body: 'Request body must be valid JSON' });
      }
    },
  };
};
