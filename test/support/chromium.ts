import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Installs Debian's chromium with the project's own script when it is missing, then starts it headless. */
export const launchChromium = async (): Promise<Browser> => {
  if (!existsSync(CHROMIUM_PATH)) {
    const install = spawnSync('bash', ['tools/install-chromium.sh'], { stdio: 'inherit', timeout: 600_000 });
    if (install.status !== 0) throw new Error(`tools/install-chromium.sh failed (exit ${install.status})`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
};
