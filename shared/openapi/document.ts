import { METHOD_NOT_ALLOWED_MESSAGE } from '../http/responses';
import { buildPaths } from './paths';
import { responses } from './responses';
import { schemas } from './schemas';
import type { OpenApiDocument } from './types';

/**
 * The OpenAPI 3.1 description of the API, assembled: the operations come from the route table
 * (paths.ts), request bodies, path and query parameters from the very valibot schemas the handlers
 * validate with (json-schema.ts, schemas.ts), and the answers several operations share from
 * responses.ts.
 */

const SECURITY_SCHEMES = {
  basic: { type: 'http', scheme: 'basic', description: 'RFC 7617; over HTTPS only' },
  digest: {
    type: 'http',
    scheme: 'digest',
    description: 'RFC 7616 with qop="auth" (and the RFC 2069 form without qop); nonces are single-use',
  },
};

/** The shared answers the paths refer to: a deployment's document carries no unused component (linters refuse one). */
const responsesUsedBy = (paths: object) => {
  const text = JSON.stringify(paths);
  return Object.fromEntries(
    Object.entries(responses()).filter(([name]) => text.includes(`"#/components/responses/${name}"`)),
  );
};

/** The document for a deployment: `publicReads` decides which operations carry security requirements. */
export const buildOpenApiDocument = (options: { publicReads: boolean; serverUrl?: string }): OpenApiDocument => {
  const paths = buildPaths(options.publicReads);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Book Library Service',
      version: '1.0.0',
      description: `Book records over HTTP with JSON bodies, protected by HTTP Basic and Digest authentication. Every path also answers OPTIONS without credentials (204, \`Allow\` listing its methods, and a CORS preflight's answer for a configured browser origin), and any method it does not take with 405, \`Allow\` and {timestamp, status: 405, message: "${METHOD_NOT_ALLOWED_MESSAGE}"}.`,
    },
    ...(options.serverUrl && { servers: [{ url: options.serverUrl }] }),
    tags: [
      { name: 'books', description: 'Book records: list, create, read, replace, change and delete' },
      { name: 'meta', description: 'The API’s own description: this document and its interactive reference' },
    ],
    paths,
    components: { securitySchemes: SECURITY_SCHEMES, schemas: schemas(), responses: responsesUsedBy(paths) },
  };
};
