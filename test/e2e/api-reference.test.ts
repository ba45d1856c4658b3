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
