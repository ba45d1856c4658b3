import { type Browser, chromium } from 'playwright-core';
import type { Answer, Cell } from '../cell';

/** Debian's Chromium (tools/install-chromium.sh), as test/browser/api-reference.test.ts launches it. */
const CHROMIUM = '/usr/bin/chromium';

export const launchChromium = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });

/**
 * The browser in the client matrix, in this process (one browser, one context per cell): Playwright's
 * `httpCredentials` answers Chromium's own authentication prompt, so Chromium picks the scheme and
 * computes the answer. The GET is a navigation, the POST a `fetch` from that page.
 */
export const chromiumCell = async (browser: Browser, cell: Cell): Promise<Answer> => {
  if (cell.mode !== 'challenge' || cell.scheme !== 'any')
    return { error: `unsupported cell ${cell.scheme}/${cell.mode}` };
  const context = await browser.newContext({ httpCredentials: { username: cell.user, password: cell.password } });
  try {
    const page = await context.newPage();
    const get = await page.goto(cell.base + cell.path);
    const post = await page.evaluate(
      async ({ url, body }) =>
        (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status,
      { url: `${cell.base}/api/books`, body: cell.body },
    );
    return { get: get?.status() ?? 0, post };
  } catch (error) {
    return { error: String(error) };
  } finally {
    await context.close();
  }
};
