import { readSetting } from '../../shared/config';
import { httpHandler } from '../../shared/http/http-handler';
import { requestUrl } from '../../shared/http/request-url';
import { ok } from '../../shared/http/responses';
import { buildOpenApiDocument, type OpenApiDocument } from '../../shared/openapi/document';

const DOCUMENT_PATH = '/api/openapi.json';

let document: OpenApiDocument | undefined;

/** Public: the OpenAPI 3.1 document, built once per container; the server URL is the one the client called. */
export const handler = httpHandler(async (event) => {
  document ??= buildOpenApiDocument({ publicReads: readSetting('publicReads') });
  const url = requestUrl(event);
  const serverUrl = url.endsWith(DOCUMENT_PATH) ? url.slice(0, -DOCUMENT_PATH.length) : undefined;
  // A client-chosen Host header must not turn `servers` into something that is not a URL.
  return ok(serverUrl && URL.canParse(serverUrl) ? { ...document, servers: [{ url: serverUrl }] } : document);
});
