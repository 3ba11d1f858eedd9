/**
 * Browser mode: the page served by `crane serve` loads with the token, connects to the engine
 * and logs no errors; without the token nothing is served. The UI journeys build on this.
 */
import { expect, test } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { startServeProcess, type ServeProcess } from '../../tools/setup/serve-process.ts';
import { collectPageErrors } from '../support/console-errors.ts';

let server: ServeProcess;
let dataDir: string;
const runDataDir = process.env['CRANE_DATA_DIR'];

test.beforeAll(async () => {
  // The server prepares the demo project in its data folder: a throw-away one, never the user's
  // (the server inherits this worker's environment).
  dataDir = mkdtempSync(join(tmpdir(), 'crane-browser-mode-'));
  process.env['CRANE_DATA_DIR'] = dataDir;
  server = await startServeProcess({ root: ROOT, uiDir: join(ROOT, 'dist', 'renderer') });
});

test.afterAll(async () => {
  await server?.stop();
  if (runDataDir === undefined) delete process.env['CRANE_DATA_DIR'];
  else process.env['CRANE_DATA_DIR'] = runDataDir;
  rmSync(dataDir, { recursive: true, force: true });
});

test('the studio loads with the session token, without console errors', async ({ page }) => {
  const errors = collectPageErrors(page);
  await page.goto(server.url);
  await expect(page).toHaveTitle('CRANE Studio');
  await expect(page.locator('#root')).not.toBeEmpty();
  // The UI drops the token from the address bar once its WebSocket is open.
  await expect.poll(() => new URL(page.url()).searchParams.has('token')).toBe(false);
  await expect(page.getByRole('alert')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('without the token the server answers nothing but a refusal', async ({ request }) => {
  const bare = new URL(server.url);
  bare.search = '';
  const response = await request.get(bare.href);
  expect(response.status()).toBe(401);
  expect(await response.text()).not.toContain('<div id="root">');
});
