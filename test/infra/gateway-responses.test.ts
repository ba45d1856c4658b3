import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookLibraryStack } from '../../infra/book-library-stack';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import { gatewayErrorBody } from '../../shared/openapi/error-bodies';

/** What API Gateway substitutes for the variables a gateway response template may use, in its formats. */
const CONTEXT_SAMPLES: Record<string, string> = {
  '$context.error.messageString': '"Too Many Requests"',
  '$context.requestId': 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
};

/**
 * The status a gateway response answers with: its own, or, with none configured, the statuses
 * API Gateway chooses that the OpenAPI document gives (DEFAULT_4XX: the stage throttle's 429;
 * DEFAULT_5XX: a crashed function's 500, among others the document does not list).
 */
const STATUSES_KEPT: Record<string, string[]> = { DEFAULT_4XX: ['429'], DEFAULT_5XX: ['500'] };

/** The documented responses of an operation guarded by credentials, by status. */
const doc = buildOpenApiDocument({ publicReads: false }) as unknown as {
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>;
  components: { responses: Record<string, { content?: Record<string, { schema: object }> }> };
};
/** The documented response for a status, as the book routes give it (GET one; POST for 413). */
const documentedResponse = (status: string) => {
  const operations = [doc.paths['/api/books/{id}']?.get, doc.paths['/api/books']?.post];
  const given = operations.find((operation) => operation?.responses[status])?.responses[status];
  if (!given?.$ref) return given as { content?: Record<string, { schema: object }> } | undefined;
  return doc.components.responses[given.$ref.split('/').pop() ?? ''];
};

interface GatewayResponse {
  ResponseType: string;
  StatusCode?: string;
  ResponseParameters?: Record<string, string>;
  ResponseTemplates?: Record<string, string>;
}

let outdir: string;
let gatewayResponses: GatewayResponse[];
beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'gateway-responses-'));
  // The gateway's answers need no function bundles: esbuild would take most of the synthesis.
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new BookLibraryStack(app, 'Test-dev', {
    stage: 'dev',
    retainData: false,
    realm: 'books',
    publicReads: false,
    throttling: { rateLimit: 10, burstLimit: 20 },
  });
  const resources = Template.fromStack(stack).findResources('AWS::ApiGateway::GatewayResponse');
  gatewayResponses = Object.values(resources).map((resource) => resource.Properties as GatewayResponse);
}, 180_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('gateway responses answer what the OpenAPI document promises', () => {
  it('are the ones the stack configures', () => {
    expect(gatewayResponses.map((response) => response.ResponseType).sort()).toEqual([
      'ACCESS_DENIED',
      'AUTHORIZER_CONFIGURATION_ERROR',
      'AUTHORIZER_FAILURE',
      'DEFAULT_4XX',
      'DEFAULT_5XX',
      'INTEGRATION_TIMEOUT',
      'MISSING_AUTHENTICATION_TOKEN',
      'REQUEST_TOO_LARGE',
      'RESOURCE_NOT_FOUND',
      'UNAUTHORIZED',
    ]);
  });

  it('each has a body exactly when its status is documented with one, and the body validates', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const statusesOf = (response: GatewayResponse) =>
      response.StatusCode === undefined ? (STATUSES_KEPT[response.ResponseType] ?? []) : [response.StatusCode];
    for (const response of gatewayResponses) {
      const template = response.ResponseTemplates?.['application/json'] ?? '';
      const variables = template.match(/\$context\.[A-Za-z.]+/g) ?? [];
      for (const variable of variables) expect(CONTEXT_SAMPLES, variable).toHaveProperty([variable]);
      const substituted = template.replace(/\$context\.[A-Za-z.]+/g, (variable) => CONTEXT_SAMPLES[variable] ?? '');
      for (const status of statusesOf(response)) {
        const documented = documentedResponse(status);
        // A status the document does not list (504) still answers the gateway's documented shape.
        const schema = documented
          ? documented.content?.['application/json']?.schema
          : gatewayErrorBody(Number(status), undefined);
        if (!schema) {
          expect(template, response.ResponseType).toBe('');
          continue;
        }
        const validate = ajv.compile(schema);
        expect(validate(JSON.parse(substituted)), `${response.ResponseType}: ${JSON.stringify(validate.errors)}`).toBe(
          true,
        );
      }
    }
  });

  it('the 504 API Gateway keeps has the contract’s shape, its own status and no timestamp', () => {
    const timeout = gatewayResponses.find((response) => response.ResponseType === 'INTEGRATION_TIMEOUT');
    expect(JSON.parse(timeout?.ResponseTemplates?.['application/json'] ?? '')).toEqual({
      status: 504,
      message: 'The service did not answer in time',
    });
  });

  it('an authorizer that throws (its account store throttled) answers 503 with Retry-After, never 500', () => {
    const failure = gatewayResponses.find((response) => response.ResponseType === 'AUTHORIZER_FAILURE');
    expect(failure?.StatusCode).toBe('503');
    expect(failure?.ResponseParameters?.['gatewayresponse.header.Retry-After']).toBe("'1'");
    expect(JSON.parse(failure?.ResponseTemplates?.['application/json'] ?? '')).toEqual({
      status: 503,
      message: 'Credentials cannot be checked at this moment; try again',
    });
  });

  it('would catch a 500 body off the documented schema', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const schema = documentedResponse('500')?.content?.['application/json']?.schema ?? {};
    expect(ajv.validate(schema, { timestamp: 'yesterday', status: 500, message: 'An unexpected error occurred' })).toBe(
      false,
    );
    expect(ajv.validate(schema, { timestamp: '2026-11-23T01:03:24.000Z', status: 500, message: 'Oops' })).toBe(false);
    expect(
      ajv.validate(schema, { timestamp: '23/Nov/2026:01:03:24 +0000', message: 'An unexpected error occurred' }),
    ).toBe(false);
    expect(ajv.validate(schema, { message: 'An unexpected error occurred' })).toBe(true);
  });
});
