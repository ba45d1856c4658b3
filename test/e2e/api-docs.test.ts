import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../functions/docs/page';
import { launchChromium } from '../support/chromium';
import { startLocalApi } from '../support/local-api';

/**
 * The API reference page in a real browser (Debian's chromium, driven by playwright-core) against
 * the local server on DynamoDB Local: what a person sees at /api/docs right after `npm start`.
 */
describe('GET /api/docs, the interactive API reference', () => {
  let api: Awaited<ReturnType<typeof startLocalApi>>;
  let browser: Browser;

  beforeAll(async () => {
    [api, browser] = await Promise.all([startLocalApi(), launchChromium()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  /** Opens the page and records every request it makes and every CSP violation it reports. */
  const openPage = async () => {
    const page = await browser.newPage();
    const requests: Request[] = [];
    const violations: string[] = [];
    page.on('request', (request) => requests.push(request));
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    // Runs in the page (a string, so it is not type-checked against Node's globals).
    await page.addInitScript(`document.addEventListener('securitypolicyviolation', (event) => {
      console.error('Content Security Policy violation: ' + event.violatedDirective + ' ' + event.blockedURI);
    });`);
    const response = await page.goto(`${api.baseUrl}/api/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
    return { page, requests, violations, response };
  };

  describe('over plain HTTP', () => {
    it('serves the page without credentials, as UTF-8 HTML under a policy that allows only its own assets', async () => {
      const response = await fetch(`${api.baseUrl}/api/docs`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await response.text();
      expect(html).not.toMatch(/https?:\/\//);
      expect(html).not.toMatch(/<script>|<style|style=/);
    });

    it('serves Swagger UI’s script and styles and its own start script, each with its charset', async () => {
      for (const [asset, type] of [
        ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
        ['api-docs.js', 'text/javascript; charset=utf-8'],
        ['swagger-ui.css', 'text/css; charset=utf-8'],
      ]) {
        const response = await fetch(`${api.baseUrl}/api/docs?asset=${asset}`);
        expect(response.status, asset).toBe(200);
        expect(response.headers.get('content-type'), asset).toBe(type);
        expect((await response.text()).length, asset).toBeGreaterThan(100);
      }
    });

    it('answers 404 for any other asset name, a path outside the list included', async () => {
      for (const asset of ['index.html', '../package.json', 'swagger-ui-bundle.js.map', '']) {
        const response = await fetch(`${api.baseUrl}/api/docs?asset=${encodeURIComponent(asset)}`);
        expect(response.status, asset).toBe(404);
        expect(await response.text()).toBe('');
      }
    });
  });

  describe('in headless Chromium', () => {
    let page: Page;
    let requests: Request[];
    let violations: string[];

    beforeAll(async () => {
      ({ page, requests, violations } = await openPage());
    }, 60_000);

    it('renders both paths and all six book operations', async () => {
      const books = page.locator('.opblock[id^="operations-books-"]');
      await expect.poll(() => books.count()).toBe(6);
      const operations = await books.evaluateAll((blocks) =>
        blocks.map((block) => {
          const method = block.querySelector('.opblock-summary-method')?.textContent;
          const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path');
          return `${method} ${path}`;
        }),
      );
      expect(operations.sort()).toEqual([
        'DELETE /api/books/{id}',
        'GET /api/books',
        'GET /api/books/{id}',
        'PATCH /api/books/{id}',
        'POST /api/books',
        'PUT /api/books/{id}',
      ]);
    });

    it('loads nothing from another host, needs no credentials and breaks none of its policy', async () => {
      expect(requests.length).toBeGreaterThanOrEqual(4); // page, two scripts, styles, document
      const origin = new URL(api.baseUrl).origin;
      for (const request of requests) {
        expect(new URL(request.url()).origin, request.url()).toBe(origin);
        expect(request.headers().authorization, request.url()).toBeUndefined();
        expect((await request.response())?.status(), request.url()).toBe(200);
      }
      expect(requests.map((request) => new URL(request.url()).pathname)).toContain('/api/openapi.json');
      expect(violations).toEqual([]);
    });

    it('runs “Try it out” with Basic credentials from the Authorize dialog and shows 200', async () => {
      await page.locator('button.authorize').first().click();
      const basicForm = page.locator('.modal-ux form').filter({ hasText: 'basic' });
      await basicForm.locator('input[type="text"]').fill('demo');
      await basicForm.locator('input[type="password"]').fill('demo');
      await basicForm.locator('button[type="submit"]').click();
      await page.locator('.modal-ux button.btn-done').first().click();

      const listBooks = page.locator('#operations-books-listBooks');
      await listBooks.locator('.opblock-summary').click();
      await listBooks.locator('.try-out__btn').click();
      const sent = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/books');
      await listBooks.locator('button.execute').click();
      expect((await sent).headers().authorization).toBe(`Basic ${Buffer.from('demo:demo').toString('base64')}`);
      await expect
        .poll(() => listBooks.locator('.live-responses-table tbody .response-col_status').first().textContent())
        .toBe('200');
      expect(violations).toEqual([]);
    });
  });
});
