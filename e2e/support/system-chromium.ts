/**
 * The Chromium Playwright launches where its own browser download is not available: CHROMIUM_PATH,
 * else Debian's /usr/bin/chromium, else undefined (Playwright's own). Shared by the e2e config and
 * `npm run bench:ui`.
 */
import { existsSync } from 'node:fs';

export function systemChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env['CHROMIUM_PATH'] ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
}
