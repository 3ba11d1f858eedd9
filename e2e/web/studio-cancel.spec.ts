/**
 * Issue 18, item 5, in Chromium against `crane serve`: a cancelled analysis leaves no stage
 * "running" (the engine's late progress events are ignored), and Verify — alone or as Verify
 * all — can be cancelled.
 */
import { expect, test } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServeProcess } from '../../tools/setup/serve-process.ts';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { analysedDemoDataDir } from '../support/analysed-demo.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../support/demo-pair.ts';
import { screenshot, serveDataDir } from '../support/studio-server.ts';
import { openStudio, tab } from '../support/studio-page.ts';

test.skip(demoPair(ROOT) === undefined, NO_DEMO_MESSAGE);

let server: ServeProcess | undefined;
let dataDir: string;

test.afterEach(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a cancelled analysis leaves no stage running', async ({ page }) => {
  dataDir = mkdtempSync(join(tmpdir(), 'crane-cancel-'));
  server = await serveDataDir(dataDir);
  await openStudio(page, server.url);
  await tab(page, 'Analysis').click();
  await page.getByRole('button', { name: 'Analyze', exact: true }).click();
  test.setTimeout(5 * 60_000);
  await expect(page.getByTestId('stage-targets')).toContainText(/running\s*[1-9]\d*%/, { timeout: 60_000 });
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await expect(page.getByText('Analysis: cancelled.')).toBeVisible();
  // The engine notices the cancel between sequences: whatever it reported meanwhile must not bring "running" back.
  for (let i = 0; i < 6; i++) {
    await expect(page.locator('[data-testid^="stage-"]').filter({ hasText: 'running' })).toHaveCount(0);
    await page.waitForTimeout(500);
  }
  // Nor does its bar stay part-filled: the interrupted stage has no result (a rerun resumes it).
  await expect(page.getByTestId('stage-targets')).toContainText('not run');
  await expect(page.getByTestId('stage-targets').getByRole('progressbar')).toHaveAttribute('aria-valuenow', '0');
  await screenshot(page, 'studio-ux', 'cancel-01-analysis');
});

test('Verify and Verify all can be cancelled', async ({ page }) => {
  test.setTimeout(10 * 60_000);
  dataDir = await analysedDemoDataDir();
  server = await serveDataDir(dataDir);
  await openStudio(page, server.url);
  await tab(page, 'Tune').click();
  await expect(page.getByTestId('preview-reasoning')).toBeVisible();
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await page.getByRole('button', { name: 'Cancel Verify' }).click();
  await expect(page.getByText('Verify: cancelled.').or(page.getByRole('button', { name: 'Verify', exact: true }))).toBeVisible();
  await expect(page.getByRole('button', { name: 'Verify', exact: true })).toBeEnabled();

  await tab(page, 'Methods').click();
  await page.getByRole('button', { name: 'Verify all' }).click();
  await page.getByRole('button', { name: 'Cancel Verify', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Verify all' })).toBeVisible();
  await expect(page.getByText(/\d+%…/)).toHaveCount(0);
  await expect(page.getByText('(last run cancelled)')).toHaveCount(1);
  await screenshot(page, 'studio-ux', 'cancel-02-verify-all');
});
