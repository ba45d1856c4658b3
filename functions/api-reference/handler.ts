import { httpHandler } from '../../shared/http/http-handler';
import { empty } from '../../shared/http/responses';
import { referenceAsset, referencePage } from '../../shared/openapi/reference-page';

/** Public: the browsable API reference at /api/docs, and its files at /api/docs/{asset}. */
export const handler = httpHandler(async (event) => {
  const asset = event.pathParameters.asset;
  if (asset === undefined) return referencePage();
  return referenceAsset(asset) ?? empty(404);
});
