/**
 * Browser mode: the page served by `crane serve` loads with the token, connects to the engine
 * and logs no errors; without the token nothing is served. The UI journeys build on this.
 */
import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { startServeProcess, type ServeProcess } from '../../tools/setup/serve-process.ts';
import { collectPageErrors } from '../support/console-errors.ts';

let server: ServeProcess;

test.beforeAll(async () => {
  server = await startServeProcess({ root: ROOT, uiDir: join(ROOT, 'dist', 'renderer') });
});

test.afterAll(async () => {
  await server.stop();
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
