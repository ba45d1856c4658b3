import { httpHandler } from '../../shared/http/http-handler';
import { requestUrl } from '../../shared/http/request-url';
import { apiBase, apiIndex } from '../../shared/openapi/api-index';

/** Public: `/` and `/api` point to the API reference, on the API's own base URL (see requestUrl). */
export const handler = httpHandler(async (event) => apiIndex(apiBase(requestUrl(event), event.resource)));
