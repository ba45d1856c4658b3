import { BOOK_CHANGE_KINDS } from '../../../shared/events/event-types';
import { expectStatus, expectUnderBase, fail, parseJson } from '../expect';
import type { Check, HttpResponse } from '../types';

/**
 * The first URL a person types (docs/contract.md#entry-points): `/api` without credentials points to
 * the API reference, as a JSON `links.reference` and a `Link` with rel="service-doc" under the base
 * URL (the stage or a custom domain's base path kept), and the reference it names answers.
 */

const REFERENCE_PATH = '/api/docs';

/** The target of the Link field's `rel="service-doc"` entry (RFC 8631), if there is one. */
const serviceDoc = (link: string | null): string | null =>
  /<([^>]*)>\s*;\s*rel="?service-doc"?/.exec(link ?? '')?.[1] ?? null;

/** The event types of the document's messages (`<prefix>.book.<kind>`), in the order the document lists them. */
interface AsyncApiShape {
  asyncapi?: unknown;
  components?: { messages?: Record<string, { name?: unknown }> };
}

const messageNames = (document: AsyncApiShape | null) =>
  Object.values(document?.components?.messages ?? {}).map(({ name }) => String(name));

const expectJsonType = (response: HttpResponse, what: string) => {
  const type = response.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) fail(`${what}: Content-Type is "${type}", not application/json`);
};

export const ENTRY_POINT_CHECKS: readonly Check[] = [
  {
    id: 'api-index',
    name: 'GET /api without credentials points to the API reference under the base URL, and the reference answers',
    needsGatewayResponses: false,
    run: async (context) => {
      const what = 'GET /api';
      const index = await context.http.send({ target: '/api' });
      expectStatus(index, 200, what);
      expectJsonType(index, what);
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
  {
    id: 'asyncapi-document',
    name: 'GET /api/asyncapi.json without credentials is an AsyncAPI 3 document naming the three book.* event types',
    needsGatewayResponses: false,
    run: async (context) => {
      const what = 'GET /api/asyncapi.json';
      const answer = await context.http.send({ target: '/api/asyncapi.json' });
      expectStatus(answer, 200, what);
      expectJsonType(answer, what);
      const document = parseJson(answer, what) as AsyncApiShape | null;
      if (typeof document?.asyncapi !== 'string' || !document.asyncapi.startsWith('3.'))
        fail(`${what}: asyncapi is ${JSON.stringify(document?.asyncapi)}, not a 3.x version`);
      const names = messageNames(document);
      for (const kind of BOOK_CHANGE_KINDS) {
        if (!names.some((name) => name.endsWith(`.book.${kind}`)))
          fail(`${what}: no message names a *.book.${kind} event type (messages: ${names.join(', ') || 'none'})`);
      }
      return `AsyncAPI ${document?.asyncapi}: ${names.join(', ')}`;
    },
  },
];
