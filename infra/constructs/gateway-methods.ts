import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import { RESOURCE_PATHS, unroutedMethods } from '../../shared/api/routes';
import { acknowledge } from './acknowledge';
import { publicMethodSkip, skipScanners } from './scanner-skips';

/** Header values as API Gateway's static mapping expressions (a quoted literal). */
export const staticHeaderValues = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`]));

/**
 * Every resource's OPTIONS and the methods it has no route for, answered by the UNROUTED_METHODS
 * function through a proxy integration (204 with `Allow` and a preflight's answer, or 405): code the
 * local server and `sam local` run too, where a MOCK integration would be API Gateway's alone (and,
 * with `binaryMediaTypes: ['*\/*']`, a 500 for want of a content conversion). Neither asks for
 * credentials. On AWS the methods are OPTIONS and ANY (API Gateway prefers a resource's explicit
 * methods to ANY, so the routes and their HEAD are unaffected); the SAM CLI's start-api lets an ANY
 * route take over the routes' own methods, so a samLocal template names each unrouted method instead.
 */
export const addUnroutedMethods = (api: apigateway.RestApi, fn: lambda.IFunction, samLocal: boolean) => {
  // No test-invoke permissions: one grant per method is enough, and keeps the function's policy small.
  const integration = new apigateway.LambdaIntegration(fn, { allowTestInvoke: false });
  for (const path of RESOURCE_PATHS) {
    const resource = api.root.resourceForPath(path);
    for (const method of samLocal ? unroutedMethods(path) : ['OPTIONS', 'ANY']) {
      acknowledgePublic(
        resource.addMethod(method, integration, { authorizationType: apigateway.AuthorizationType.NONE }),
      );
    }
  }
};

const PUBLIC_REASON =
  'Public on purpose: OPTIONS lists the methods and a 405 refuses the others; neither reads or writes data, and browsers send preflights without credentials.';

const acknowledgePublic = (method: IConstruct) => {
  acknowledge(method, 'AwsSolutions-APIG4', PUBLIC_REASON);
  skipScanners(method, [publicMethodSkip(PUBLIC_REASON)]);
  acknowledge(
    method,
    'AwsSolutions-COG4',
    'Public on purpose, without credentials by design (RFC 9110 OPTIONS and 405, CORS preflights).',
  );
};
