/**
 * Issue 18, "Views researchers expect" — export, in Chromium against `crane serve` on an analysed
 * demo project: before anything is written, the dialog states the method and its exact settings,
 * the overrides and locks, the protected lm_head rows, and the estimated size and shard count in
 * the chosen dtype.
 */
import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { useAnalysedDemoStudio } from '../support/analysed-demo-server.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../support/demo-pair.ts';
import { screenshot } from '../support/studio-server.ts';
import { DESKTOP, openStudio, pickHeatmapBlock, tab } from '../support/studio-page.ts';

test.skip(demoPair(ROOT) === undefined, NO_DEMO_MESSAGE);

const studio = useAnalysedDemoStudio(5 * 60_000);

test('the export dialog summarises method, settings, overrides, protected rows, size and shards before writing', async ({ page }) => {
  await openStudio(page, studio.server.url, DESKTOP);
  await tab(page, 'Tune').click();
  await page.getByRole('spinbutton', { name: 'α value' }).fill('0.4');
  await pickHeatmapBlock(page);
  await page.getByLabel('Lock (keep θ_I)').check();

  await page.getByRole('button', { name: 'Export…' }).click();
  const plan = page.getByTestId('export-plan');
  await expect(plan).toContainText(/CRANE · α 0\.4 · q 0\.5 · τ 0\.03 · k 153 · coarse · 1 override #[0-9a-f]{8}/);
  await expect(page.getByTestId('export-plan-overrides')).toHaveText('1: layer 0 · attention locked');
  await expect(plan).toContainText(/lm_head rows kept at θ_I: .* · think rows \d+/);
  const size = page.getByTestId('export-plan-size');
  await expect(size).toHaveText(/^≈ [\d.]+ [KMG]?i?B in 1 shard of at most 5(\.0+)? GiB \(source dtypes\)$/);

  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Dtype').selectOption('F16');
  await expect(size).toContainText('(F16)');
  const f16 = await size.textContent();
  await dialog.getByLabel('Dtype').selectOption('F32');
  await expect(size).toContainText('(F32)');
  expect(await size.textContent()).not.toBe(f16);
  // A ~1 MiB budget: the demo's F32 weights (~2 MiB) take several shards.
  await dialog.getByLabel('Shard size (GiB)').fill('0.001');
  await expect(size).toHaveText(/in ([2-9]|\d\d+) shards of at most 1\.\d+ MiB \(F32\)$/);
  await dialog.getByLabel(/^Output folder/).fill(join(studio.dataDir, 'export-out'));
  await expect(plan).toContainText(join(studio.dataDir, 'export-out'));
  await screenshot(page, 'studio-views', 'export-01-plan');
});
