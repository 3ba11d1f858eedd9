/**
 * Two projects over one build:
 *   web       Chromium against browser mode (`crane serve`); always runs. Uses the system
 *             Chromium (Debian's /usr/bin/chromium, or CHROMIUM_PATH) where Playwright's own
 *             browser download is not available.
 *   electron  the desktop app through Playwright's _electron; runs wherever an Electron binary
 *             is installed and skips, saying so loudly, where it is not.
 * Run: npm run e2e  (or: npm run e2e -- --project=web)
 */
import { defineConfig } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { systemChromium } from './support/system-chromium.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const chromiumPath = systemChromium();

export default defineConfig({
  testDir: '.',
  outputDir: `${ROOT}test-results`,
  globalSetup: './support/global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  forbidOnly: Boolean(process.env['CI']),
  reporter: [['list']],
  projects: [
    {
      name: 'web',
      testMatch: /web\/.*\.spec\.ts$/,
      use: {
        browserName: 'chromium',
        ...(chromiumPath === undefined ? {} : { launchOptions: { executablePath: chromiumPath } }),
        trace: 'retain-on-failure',
      },
    },
    { name: 'electron', testMatch: /electron\/.*\.spec\.ts$/ },
  ],
});
