import { IdempotencyKeyReusedError } from '../books/errors';
import { DEFAULT_LIST_MAX_BOOKS } from '../books/limits';
import { ListTooLargeError, PreconditionRequiredError, UnsupportedMediaTypeError } from '../http/errors';
import { JSON_MEDIA_TYPE, MAX_BODY_BYTES, MERGE_PATCH_MEDIA_TYPE } from '../http/json-body';
import { GATEWAY_BODY_TOO_LARGE_MESSAGE, INTERNAL_ERROR_MESSAGE } from '../http/responses';
import { errorBody, errorBodyOrGateway, gatewayErrorBody } from './error-bodies';
import { ETAG } from './headers';
import { jsonContent, ref } from './references';

/** components.responses: the answers several operations share, each described once. */
export const responses = () => ({
  ValidationFailed: {
    description:
      'Invalid body (not UTF-8, not JSON, or a field breaking its rule: text with an unpaired surrogate included), path id, query or `Host` header',
    content: jsonContent(ref('ValidationError')),
  },
  MalformedHost: {
    description:
      'A `Host` header that is not a host name or IP address with an optional port (`errors.host`); on AWS such a request never reaches the API',
    content: jsonContent(ref('ValidationError')),
  },
  Unauthorized: {
    description: 'Credentials missing or invalid',
    headers: {
      'WWW-Authenticate': {
        description:
          'A Digest challenge per offered algorithm (realm, qop="auth", algorithm, nonce, opaque, charset, and stale=true for a spent or expired nonce), then the Basic challenge `Basic realm="<realm>", charset="UTF-8"` (unless the deployment leaves it out)',
        schema: { type: 'string' },
      },
    },
  },
  Forbidden: {
    description:
      'The credentials are right, but the user’s role is short of the one this operation needs (`x-required-role`); no challenge, other credentials are not asked for',
    content: jsonContent(errorBody(403)),
  },
  PayloadTooLarge: {
    description: `Body larger than ${MAX_BODY_BYTES} bytes`,
    content: jsonContent(errorBodyOrGateway(errorBody(413), gatewayErrorBody(413, GATEWAY_BODY_TOO_LARGE_MESSAGE))),
  },
  UnsupportedMediaType: {
    description: `A body that is not ${JSON_MEDIA_TYPE} (PATCH: also ${MERGE_PATCH_MEDIA_TYPE}), or whose charset is not UTF-8; media types compare case-insensitively`,
    content: jsonContent(errorBody(415, new UnsupportedMediaTypeError().message)),
  },
  PreconditionFailed: {
    description:
      'If-Match named no current version of the book (it changed since it was read), or If-None-Match named the current one or * for an existing book; nothing was written',
    headers: ETAG,
    content: jsonContent(errorBody(412)),
  },
  PreconditionRequired: {
    description:
      'The deployment requires If-Match on this method (stack option requireIfMatch), and the request had none',
    content: jsonContent(errorBody(428, new PreconditionRequiredError().message)),
  },
  IdempotencyKeyReused: {
    description: 'This Idempotency-Key was used with a different book: the first request’s outcome stands',
    content: jsonContent(errorBody(422, new IdempotencyKeyReusedError().message)),
  },
  ListTooLarge: {
    description: `The unpaged list would hold more books than the deployment lists in one response (${DEFAULT_LIST_MAX_BOOKS.toLocaleString('en-US')} by default, \`listMaxBooks\`); ask for pages with \`limit\``,
    content: jsonContent(errorBody(422, new ListTooLargeError().message)),
  },
  TooManyRequests: {
    description: 'Stage throttling limit reached (answered by API Gateway)',
    content: jsonContent(gatewayErrorBody()),
  },
  InternalError: {
    description: 'Unexpected failure; when API Gateway answers it itself (a function that crashed), `{message}` alone',
    content: jsonContent(
      errorBodyOrGateway(errorBody(500, INTERNAL_ERROR_MESSAGE), gatewayErrorBody(undefined, INTERNAL_ERROR_MESSAGE)),
    ),
  },
});
