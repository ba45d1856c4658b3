import type { APIGatewayProxyEvent } from 'aws-lambda';
import { authorizedAs } from '../../local/authorizer-gateway';
import { type DescribedRequest, proxyEventFor as gatewayEventFor, lambdaContext } from '../../local/gateway';

export type { DescribedRequest as RawRequest } from '../../local/gateway';

/**
 * The local gateway's own translation, so handlers see exactly what they see behind `npm start`
 * once the authorizer let an admin in (a function refuses a protected route without a user).
 */
export const proxyEventFor = (request: DescribedRequest): APIGatewayProxyEvent | undefined => {
  const event = gatewayEventFor(request);
  return event && authorizedAs(event, 'demo', 'admin');
};

export const contextFor = (event: APIGatewayProxyEvent, name = 'fuzz') =>
  lambdaContext(name, event.requestContext.requestId);
