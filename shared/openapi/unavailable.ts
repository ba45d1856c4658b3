import {
  AUTHENTICATION_RETRY_AFTER_SECONDS,
  AUTHENTICATION_UNAVAILABLE_MESSAGE,
  CONTENDED_RETRY_AFTER_SECONDS,
  CONTENDED_WRITE_MESSAGE,
  STORE_NOT_READY_MESSAGE,
  STORE_NOT_READY_RETRY_AFTER_SECONDS,
} from '../http/responses';
import { errorBody, gatewayErrorBody } from './error-bodies';
import { jsonContent } from './references';

/** Why an operation may answer 503; each asks the client to repeat after its own `Retry-After`. */
export type UnavailableCause = 'contended' | 'upgrading' | 'authentication';

const CAUSES: Record<UnavailableCause, { when: string; outcome: string; body: object; retryAfter: number }> = {
  contended: {
    when: 'other requests kept changing the book until the retries ran out',
    outcome: 'nothing was written',
    body: errorBody(503, CONTENDED_WRITE_MESSAGE),
    retryAfter: CONTENDED_RETRY_AFTER_SECONDS,
  },
  upgrading: {
    when: 'the books table is older than this version of the service serves (an upgrade step is due)',
    outcome: 'nothing was read or written',
    body: errorBody(503, STORE_NOT_READY_MESSAGE),
    retryAfter: STORE_NOT_READY_RETRY_AFTER_SECONDS,
  },
  authentication: {
    when: 'the credentials could not be checked at this moment',
    outcome: 'answered by API Gateway for the authorizer',
    body: gatewayErrorBody(503, AUTHENTICATION_UNAVAILABLE_MESSAGE),
    retryAfter: AUTHENTICATION_RETRY_AFTER_SECONDS,
  },
};

/** The 503 of an operation that can be unavailable for `causes`: one body and `Retry-After` per cause. */
export const serviceUnavailable = (causes: readonly UnavailableCause[]) => {
  const reasons = causes.map((cause) => CAUSES[cause]);
  const bodies = reasons.map(({ body }) => body);
  return {
    description: `Unavailable for now, when ${reasons.map(({ when, outcome }) => `${when}: ${outcome}`).join('; or when ')}. Repeat after \`Retry-After\``,
    headers: {
      'Retry-After': {
        description: `Seconds to wait before repeating the request: ${reasons.map(({ when, retryAfter }) => `${retryAfter} when ${when}`).join('; ')}`,
        schema: { type: 'integer', minimum: 0 },
      },
    },
    content: jsonContent(bodies.length === 1 ? bodies[0] : { anyOf: bodies }),
  };
};
