import { httpHandler } from '../../shared/http/http-handler';
import { empty, redirect } from '../../shared/http/responses';
import { referenceAsset, referencePage } from '../../shared/openapi/reference-page';

/**
 * Public: the browsable API reference at /api/docs, and its files at /api/docs/{asset}. API Gateway
 * also sends /api/docs/ here, where the page's relative links would miss: that one is sent to /api/docs.
 */
export const handler = httpHandler(async (event) => {
  const asset = event.pathParameters.asset;
  if (asset === undefined && event.path.endsWith('/')) return redirect('../docs');
  if (asset === undefined) return referencePage();
  return referenceAsset(asset) ?? empty(404);
});
