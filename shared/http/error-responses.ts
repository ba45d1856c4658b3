import type { MiddlewareObj } from '@middy/core';
import {
  BookNotFoundError,
  BookStoreNotReadyError,
  ConcurrentUpdateError,
  DuplicateIsbnError,
  IdempotencyKeyReusedError,
  PreconditionFailedError,
  ValidationError,
} from '../books/errors';
import { logger } from '../observability/logger';
import { HttpError } from './errors';
import { entityTag, preconditionFailedMessage } from './preconditions';
import { contendedWrite, empty, failure, internalError, storeNotReady, validationFailure } from './responses';
import type { HttpEvent, HttpResponse } from './types';

/** The contract's response for an error, or undefined when the error is not the client's doing. */
export const responseForError = (error: unknown): HttpResponse | undefined => {
  if (error instanceof ValidationError) return validationFailure(error.errors);
  if (error instanceof BookNotFoundError) return empty(404);
  if (error instanceof DuplicateIsbnError) return empty(409);
  if (error instanceof PreconditionFailedError) {
    return failure(412, preconditionFailedMessage(error.id, error.condition), {
      ETag: entityTag(error.id, error.currentVersion),
    });
  }
  if (error instanceof IdempotencyKeyReusedError) return failure(422, error.message);
  if (error instanceof HttpError) return failure(error.statusCode, error.message);
  // Contention is nobody's fault and passes: 503 + Retry-After, not the unexpected-error 500.
  if (error instanceof ConcurrentUpdateError) return contendedWrite();
  // A deploy ahead of its upgrade step: the operator's to finish, and it passes; 503, never 500.
  if (error instanceof BookStoreNotReadyError) return storeNotReady();
  return undefined;
};

/** Maps named errors to the contract's statuses; anything else is logged once and becomes the generic 500. */
export const errorResponses = (): MiddlewareObj<HttpEvent, HttpResponse> => ({
  onError: async (request) => {
    const known = responseForError(request.error);
    if (request.error instanceof ConcurrentUpdateError) {
      // Not the client's doing and not a fault either; operators still want to see how often it happens.
      logger.warn('Write gave up under contention', {
        error: request.error,
        awsRequestId: request.context?.awsRequestId,
      });
    }
    if (request.error instanceof BookStoreNotReadyError) {
      // One line per refused request, naming the command (the cause's message): what the operator must run.
      logger.error(request.error.message, { awsRequestId: request.context?.awsRequestId });
    }
    if (known) {
      request.response = known;
      return;
    }
    logger.error('Unhandled error', {
      error: request.error as Error,
      awsRequestId: request.context?.awsRequestId,
    });
    request.response = internalError();
  },
});
