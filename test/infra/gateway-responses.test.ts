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

/** What API Gateway substitutes for the variables a gateway response template may use, in its formats. */
const CONTEXT_SAMPLES: Record<string, string> = {
  '$context.requestTime': '23/Nov/2026:01:03:24 +0000',
  '$context.requestTimeEpoch': '1795914204000',
  '$context.requestId': 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
};

/** The documented responses of an operation guarded by credentials, by status. */
const doc = buildOpenApiDocument({ publicReads: false }) as unknown as {
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>;
  components: { responses: Record<string, { content?: Record<string, { schema: object }> }> };
};
const documentedResponse = (status: string) => {
  const ref = doc.paths['/api/books/{id}']?.get?.responses[status]?.$ref;
  return ref ? doc.components.responses[ref.split('/').pop() ?? ''] : undefined;
};

interface GatewayResponse {
  ResponseType: string;
  StatusCode: string;
  ResponseTemplates?: Record<string, string>;
}

let outdir: string;
let gatewayResponses: GatewayResponse[];
beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'gateway-responses-'));
  const app = new App({ outdir });
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
  it('are the five the stack configures', () => {
    expect(gatewayResponses.map((response) => response.ResponseType).sort()).toEqual([
      'ACCESS_DENIED',
      'DEFAULT_4XX',
      'DEFAULT_5XX',
      'MISSING_AUTHENTICATION_TOKEN',
      'UNAUTHORIZED',
    ]);
  });

  it('each has a body exactly when its status is documented with one, and the body validates', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    for (const response of gatewayResponses) {
      const template = response.ResponseTemplates?.['application/json'] ?? '';
      const documented = documentedResponse(response.StatusCode);
      const schema = documented?.content?.['application/json']?.schema;
      if (!schema) {
        expect(template, response.ResponseType).toBe('');
        continue;
      }
      const variables = template.match(/\$context\.[A-Za-z.]+/g) ?? [];
      for (const variable of variables) expect(CONTEXT_SAMPLES, variable).toHaveProperty([variable]);
      const body = JSON.parse(
        template.replace(/\$context\.[A-Za-z.]+/g, (variable) => CONTEXT_SAMPLES[variable] ?? ''),
      );
      const validate = ajv.compile(schema);
      expect(validate(body), `${response.ResponseType}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('would catch a 500 body off the documented schema', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const schema = documentedResponse('500')?.content?.['application/json']?.schema ?? {};
    expect(ajv.validate(schema, { timestamp: 'yesterday', status: 500, message: 'An unexpected error occurred' })).toBe(
      false,
    );
    expect(ajv.validate(schema, { timestamp: '2026-11-23T01:03:24.000Z', status: 500, message: 'Oops' })).toBe(false);
  });
});
