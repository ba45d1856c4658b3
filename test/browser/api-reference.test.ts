import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi } from '../support/local-api';

/**
 * The browsable API reference at /api/docs, through the local server (the same handler the stack
 * deploys), in a real headless Chromium (Debian's package; tools/install-chromium.sh installs it when
 * missing). test/e2e/api-reference.test.ts checks what the page serves without a browser.
 */
const CHROMIUM = '/usr/bin/chromium';

let api: Awaited<ReturnType<typeof startLocalApi>>;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

describe('the reference in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    // The project's own setup installs Debian's package when it is missing (as root, e.g. in CI).
    if (!existsSync(CHROMIUM)) spawnSync('bash', ['tools/install-chromium.sh'], { stdio: 'inherit', timeout: 600_000 });
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing and tools/install-chromium.sh could not install it`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
  }, 660_000);
  afterAll(() => browser?.close());

  it('renders both paths and all six book operations, loads nothing from another host, and Try it out with Basic gets 200', async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // Chromium reports each blocked inline style or script on the console and as an event.
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    await page.addInitScript(`document.addEventListener('securitypolicyviolation', (event) => {
      console.error('Content Security Policy violation: ' + event.violatedDirective);
    });`);

    await page.goto(`${api.baseUrl}/api/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
    const summaries = await page.locator('.opblock-tag-section .opblock-summary').allInnerTexts();
    const operations = summaries.map((text) => text.replace(/\s+/g, ' ').trim());
    for (const expected of [
      'GET /api/books',
      'POST /api/books',
      'GET /api/books/{id}',
      'PUT /api/books/{id}',
      'PATCH /api/books/{id}',
      'DELETE /api/books/{id}',
    ]) {
      expect(
        operations.some((text) => text.startsWith(expected)),
        `${expected} in ${operations.join(' | ')}`,
      ).toBe(true);
    }

    // Authorize with Basic, then Try it out on GET /api/books.
    await page
      .getByRole('button', { name: /authorize/i })
      .first()
      .click();
    const basic = page.locator('.auth-container').filter({ hasText: /basic/i }).first();
    await basic.locator('input').nth(0).fill('demo');
    await basic.locator('input[type=password]').fill('demo');
    await basic.locator('button.authorize').click();
    await page.locator('button.close-modal').click();

    const list = page.locator('.opblock-get').filter({ hasText: 'List books' }).first();
    await list.locator('.opblock-summary').click();
    await list.getByRole('button', { name: /try it out/i }).click();
    await list.getByRole('button', { name: /execute/i }).click();
    const status = list.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor({ timeout: 20_000 });
    expect((await status.textContent())?.trim()).toBe('200');

    expect(errors).toEqual([]);
    expect(violations).toEqual([]);
    expect(requested.length).toBeGreaterThan(3);
    expect(requested.filter((url) => !url.startsWith(`${api.baseUrl}/`) && !url.startsWith('data:'))).toEqual([]);
    await page.close();
  }, 90_000);
});
