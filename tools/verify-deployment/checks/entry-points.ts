import { expectStatus, expectUnderBase, fail, parseJson } from '../expect';
import type { Check } from '../types';

/**
 * The first URL a person types (docs/contract.md#entry-points): `/api` without credentials points to
 * the API reference, as a JSON `links.reference` and a `Link` with rel="service-doc" under the base
 * URL (the stage or a custom domain's base path kept), and the reference it names answers.
 */

const REFERENCE_PATH = '/api/docs';

/** The target of the Link field's `rel="service-doc"` entry (RFC 8631), if there is one. */
const serviceDoc = (link: string | null): string | null =>
  /<([^>]*)>\s*;\s*rel="?service-doc"?/.exec(link ?? '')?.[1] ?? null;

export const ENTRY_POINT_CHECKS: readonly Check[] = [
  {
    id: 'api-index',
    name: 'GET /api without credentials points to the API reference under the base URL, and the reference answers',
    needsGatewayResponses: false,
    run: async (context) => {
      const what = 'GET /api';
      const index = await context.http.send({ target: '/api' });
      expectStatus(index, 200, what);
      const type = index.headers.get('content-type') ?? '';
      if (!/^application\/json\s*(;|$)/i.test(type)) fail(`${what}: Content-Type is "${type}", not application/json`);
      const body = parseJson(index, what) as { links?: { reference?: unknown } } | null;
      const reference = body?.links?.reference;
      if (typeof reference !== 'string' || !reference.endsWith(REFERENCE_PATH))
        fail(`${what}: links.reference is ${JSON.stringify(reference)}, not a URL ending in ${REFERENCE_PATH}`);
      const linked = expectUnderBase(
        context.baseUrl,
        serviceDoc(index.headers.get('link')),
        REFERENCE_PATH,
        `${what}: Link rel="service-doc"`,
      );
      const page = await context.http.send({ target: linked.href });
      expectStatus(page, 200, `GET ${linked.href}`);
      const pageType = page.headers.get('content-type') ?? '';
      if (!pageType.startsWith('text/html')) fail(`GET ${linked.href}: Content-Type is "${pageType}", not text/html`);
      return `points to ${linked.href}`;
    },
  },
];
