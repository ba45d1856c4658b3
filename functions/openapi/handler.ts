import { readSetting } from '../../shared/config';
import { httpHandler } from '../../shared/http/http-handler';
import { requestUrl } from '../../shared/http/request-url';
import { ok } from '../../shared/http/responses';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import type { OpenApiDocument } from '../../shared/openapi/types';

const DOCUMENT_PATH = '/api/openapi.json';

let document: OpenApiDocument | undefined;

/** Public: the OpenAPI 3.1 document, built once per container; the server URL is the gateway's own origin (see requestUrl), never the client's Host. */
export const handler = httpHandler(async (event) => {
  document ??= buildOpenApiDocument({ publicReads: readSetting('publicReads') });
  const url = requestUrl(event);
  const serverUrl = url.endsWith(DOCUMENT_PATH) ? url.slice(0, -DOCUMENT_PATH.length) : undefined;
  // Without a usable origin the URL is a bare path: the document then names no server.
  return ok(serverUrl && URL.canParse(serverUrl) ? { ...document, servers: [{ url: serverUrl }] } : document);
});
