/**
 * Issue 18, items 1 and 3, in Chromium against `crane serve` on an analysed demo project:
 * - α, an override, a lock and the current view are saved to project.json by themselves (a
 *   saved/unsaved marker says so) and come back after a reload; Save project confirms.
 * - q other than the analysed one: the preview asks for Analyze, Analyze recomputes the stage
 *   that depends on q (not "every stage cached"), and the preview answers at the new q.
 */
import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useAnalysedDemoStudio } from '../support/analysed-demo-server.ts';
import { collectPageErrors } from '../support/console-errors.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../support/demo-pair.ts';
import { demoProjectDir, screenshot } from '../support/studio-server.ts';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { DESKTOP, openStudio, pickHeatmapBlock, tab } from '../support/studio-page.ts';

test.skip(demoPair(ROOT) === undefined, NO_DEMO_MESSAGE);

const studio = useAnalysedDemoStudio(15 * 60_000);

const marker = (page: Page) => page.getByTestId('save-marker').first();

test('α, overrides, locks and the view are autosaved and restored after a reload', async ({ page }) => {
  const errors = collectPageErrors(page);
  await openStudio(page, studio.server.url, DESKTOP);
  await tab(page, 'Tune').click();
  await expect(page.getByTestId('gate-heatmap')).toBeVisible();
  await expect(marker(page)).toHaveAttribute('data-status', 'saved');

  await page.getByRole('spinbutton', { name: 'α value' }).fill('0.4');
  await pickHeatmapBlock(page, { down: 1 });
  await page.getByTestId('override-editor').getByLabel('Lock (keep θ_I)').check();
  await pickHeatmapBlock(page, { down: 1 });
  await page.getByTestId('override-editor').getByLabel('Override gate').check();
  await page.getByRole('spinbutton', { name: 'Gate S value' }).fill('0.5');
  await tab(page, 'Methods').click();
  await expect(marker(page)).toHaveAttribute('data-status', 'saved');
  await expect(marker(page)).toContainText(/✓ Saved \d/);
  await screenshot(page, 'studio-ux', 'autosave-01-saved');

  // On disk, not only in the page: project.json holds what was set.
  const stored = JSON.parse(readFileSync(join(demoProjectDir(studio.dataDir), 'project.json'), 'utf8')) as { settings: { alpha: number; overrides: { locked: boolean; gate: number | null }[] } };
  expect(stored.settings.alpha).toBe(0.4);
  expect(stored.settings.overrides).toEqual(expect.arrayContaining([
    expect.objectContaining({ locked: true, gate: null }),
    expect.objectContaining({ locked: false, gate: 0.5 }),
  ]));

  await page.reload();
  await expect(tab(page, 'Methods')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('spinbutton', { name: 'α value' })).toHaveValue('0.4');
  await tab(page, 'Tune').click();
  await expect(page.getByRole('spinbutton', { name: 'α value' })).toHaveValue('0.4');
  const stillStored = JSON.parse(readFileSync(join(demoProjectDir(studio.dataDir), 'project.json'), 'utf8')) as { settings: { overrides: unknown[] } };
  expect(stillStored.settings.overrides).toHaveLength(2);
  await expect(marker(page)).toHaveAttribute('data-status', 'saved');
  await screenshot(page, 'studio-ux', 'autosave-02-after-reload');

  await tab(page, 'Pair & project').click();
  await page.getByRole('button', { name: 'Save project' }).click();
  await expect(page.getByTestId('save-marker').last()).toContainText(/✓ Saved \d/);
  expect(errors).toEqual([]);
});

test('q other than the analysed one: Analyze recomputes what q needs, then the preview answers', async ({ page }) => {
  await openStudio(page, studio.server.url, DESKTOP);
  await tab(page, 'Tune').click();
  await expect(page.getByTestId('preview-reasoning')).toBeVisible();
  await page.getByRole('spinbutton', { name: 'q value' }).fill('0.6');
  await expect(page.getByRole('alert').filter({ hasText: 'Preview failed' })).toContainText('q');
  await expect(page.getByTestId('preview-result')).toHaveAttribute('data-stale', 'true');
  await screenshot(page, 'studio-ux', 'q-01-preview-asks-for-analyze');

  await tab(page, 'Analysis').click();
  await expect(page.getByTestId('stage-gates')).toContainText('stale');
  await page.getByRole('button', { name: 'Analyze', exact: true }).click();
  // Gates depend on q, and the curvature stage on the gates: both run again, nothing before them does.
  for (const stage of ['gates', 'curvature']) await expect(page.getByTestId(`stage-${stage}`)).toContainText('done', { timeout: 10 * 60_000 });
  for (const stage of ['targets', 'projectors', 'gradients']) await expect(page.getByTestId(`stage-${stage}`)).toContainText('cached');

  await tab(page, 'Tune').click();
  await expect(page.getByTestId('preview-result')).toHaveAttribute('data-stale', 'false');
  await expect(page.getByRole('alert').filter({ hasText: 'Preview failed' })).toHaveCount(0);
  await screenshot(page, 'studio-ux', 'q-02-preview-at-new-q');
});
