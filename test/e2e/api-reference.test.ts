import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../shared/openapi/reference-page';
import { startLocalApi } from '../support/local-api';

/**
 * The browsable API reference at /api/docs, through the local server (the same handler the stack
 * deploys): what it serves. test/browser/api-reference.test.ts renders it in Chromium.
 */
let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

describe('GET /api/docs without credentials', () => {
  it('serves the page as UTF-8 HTML with a Content-Security-Policy allowing only its own files', async () => {
    const response = await fetch(`${api.baseUrl}/api/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
  });

  it('sends /api/docs/ (which API Gateway routes here too) to /api/docs, where its relative links resolve', async () => {
    const response = await fetch(`${api.baseUrl}/api/docs/`, { redirect: 'manual' });
    expect(response.status).toBe(301);
    const target = new URL(response.headers.get('location') as string, `${api.baseUrl}/api/docs/`);
    expect(target.href).toBe(`${api.baseUrl}/api/docs`);
    expect((await fetch(`${api.baseUrl}/api/docs/`)).status).toBe(200);
  });

  it.each([
    ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['init.js', 'text/javascript; charset=utf-8'],
  ])('serves %s itself, as %s', async (name, type) => {
    const response = await fetch(`${api.baseUrl}/api/docs/${name}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
    expect((await response.text()).length).toBeGreaterThan(100);
  });

  it.each(['package.json', 'index.html', '..%2Fpackage.json', 'swagger-ui-bundle.js.map'])(
    'answers 404 for any other file (%s)',
    async (name) => {
      expect((await fetch(`${api.baseUrl}/api/docs/${name}`)).status).toBe(404);
    },
  );
});

describe('GET / and /api, the first URLs a person types', () => {
  it.each(['/', '/api'])(
    '%s points to the reference, the document and the books, each of which answers',
    async (path) => {
      const response = await fetch(`${api.baseUrl}${path}`, { redirect: 'manual' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      const { message, links } = (await response.json()) as { message: string; links: Record<string, string> };
      expect(message).toContain('/api/docs');
      expect(links).toStrictEqual({
        books: `${api.baseUrl}/api/books`,
        reference: `${api.baseUrl}/api/docs`,
        openapi: `${api.baseUrl}/api/openapi.json`,
      });
      expect(response.headers.get('link')).toBe(
        `<${links.reference}>; rel="service-doc", <${links.openapi}>; rel="service-desc"`,
      );
      const reference = await fetch(links.reference as string);
      expect([reference.status, reference.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
      expect(((await (await fetch(links.openapi as string)).json()) as { openapi: string }).openapi).toBe('3.1.0');
      // The books need credentials: the pointer says where, the gateway asks for them.
      expect((await fetch(links.books as string)).status).toBe(401);
    },
  );
});
