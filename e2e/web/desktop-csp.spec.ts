/**
 * The renderer build under the desktop app's exact response headers (CSP included), served over
 * http by the same responder as crane://app. Chromium enforces 'self' the same way for both
 * origins, so a CSP violation the Electron window would hit shows up here as a console error,
 * even where no Electron binary exists. The in-page synthetic engine stands in for the engine.
 */
import { expect, test } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { respondToAppRequest } from '../../electron/main/app-protocol.ts';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { collectPageErrors } from '../support/console-errors.ts';

let server: Server;
let origin: string;

test.beforeAll(async () => {
  const root = join(ROOT, 'dist', 'renderer');
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    void respondToAppRequest(root, `crane://app${path}`, request.method).then(async (reply) => {
      response.writeHead(reply.status, Object.fromEntries(reply.headers));
      response.end(Buffer.from(await reply.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

test('the renderer build runs under the desktop CSP without violations', async ({ page }) => {
  const errors = collectPageErrors(page);
  const response = await page.goto(`${origin}/index.html?engine=synthetic`);
  expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
  await expect(page).toHaveTitle('CRANE Studio');
  await expect(page.locator('#root')).not.toBeEmpty();
  await expect(page.getByRole('status').first()).toContainText('Synthetic engine');
  // Give lazy chunks, charts and canvases a moment to load and draw.
  await page.waitForTimeout(1000);
  expect(errors).toEqual([]);
});
