import { readSetting } from '../../shared/config';
import { headerValue } from '../../shared/http/conditional-requests';
import { httpHandler } from '../../shared/http/http-handler';
import { unroutedMethodAnswer } from '../../shared/http/unrouted-methods';

/**
 * Public: every resource's OPTIONS and the methods it has no route for (the stack's OPTIONS and ANY
 * methods), answered by the same code on Lambda, under `sam local` and under `npm start`.
 */
export const handler = httpHandler(async (event) =>
  unroutedMethodAnswer(
    event.httpMethod,
    event.resource,
    headerValue(event, 'origin'),
    readSetting('corsAllowedOrigins'),
  ),
);
