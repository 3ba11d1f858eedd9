/** The installed Electron binary, if any: the electron package exports its path and throws without it. */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

export function electronBinary(): string | undefined {
  try {
    const path: unknown = createRequire(import.meta.url)('electron');
    return typeof path === 'string' && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

export const NO_ELECTRON_MESSAGE = [
  '',
  '================================================================================',
  ' ELECTRON E2E SKIPPED: no Electron binary is installed on this machine.',
  ' The optional `electron` package could not download its binary here, so the',
  ' desktop journeys did NOT run. Install Electron (npm ci where its download is',
  ' reachable) to run them. The web project covers the same UI in browser mode.',
  '================================================================================',
  '',
].join('\n');
