import type { APIGatewayProxyEvent } from 'aws-lambda';
import { lambdaContext } from '../../local/gateway';

/** The local gateway's own translation, so handlers see exactly what they see behind `npm start`. */
export { type DescribedRequest as RawRequest, proxyEventFor } from '../../local/gateway';

export const contextFor = (event: APIGatewayProxyEvent, name = 'fuzz') =>
  lambdaContext(name, event.requestContext.requestId);
