/**
 * Issue 18, items 2, 6 and 8, in Chromium against `crane serve` on an analysed demo project:
 * - results carry the settings they were computed for: a Verify whose α moved is marked "from
 *   other settings" in Methods, one that ends after α moved keeps the α it ran at, a failed
 *   preview is marked stale, and a reload shows the same measured results in Tune and in Methods
 *   (baselines and Verify all's too);
 * - the GSP panel's numbers agree: directions kept follow the mask, its whole-block retained is
 *   the heatmap's ‖Π(U)‖/‖U‖ cell and its projector's share is labelled as such;
 * - opening another project leaves nothing of the previous one's heatmap or points.
 */
import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { useAnalysedDemoStudio } from '../support/analysed-demo-server.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../support/demo-pair.ts';
import { screenshot } from '../support/studio-server.ts';
import { DESKTOP, heatmapCellCentre, openProject, openStudio, pickHeatmapBlock, tab } from '../support/studio-page.ts';

const demo = demoPair(ROOT);
test.skip(demo === undefined, NO_DEMO_MESSAGE);

const studio = useAnalysedDemoStudio(10 * 60_000);

const alpha = (page: Page) => page.getByRole('spinbutton', { name: 'α value' });
const measuredPair = /^[-+]?[\d.e-]+ \/ [-+]?[\d.e-]+/;

test('a Verify measured at other settings says so, and Tune and Methods agree after a reload', async ({ page }) => {
  await openStudio(page, studio.server.url, DESKTOP);
  await tab(page, 'Tune').click();
  await alpha(page).fill('0.3');
  await expect(page.getByTestId('preview-result')).toHaveAttribute('data-stale', 'false');
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await expect(page.getByTestId('preview-measured')).toHaveText(/^1measured point$/, { timeout: 5 * 60_000 });

  await alpha(page).fill('0.5');
  await tab(page, 'Methods').click();
  const crane = page.getByTestId('verify-crane');
  await expect(crane).toContainText('from other settings');
  await page.getByRole('button', { name: 'Verify TIES', exact: true }).click();
  await expect(page.getByTestId('verify-ties')).toHaveText(measuredPair, { timeout: 5 * 60_000 });
  await screenshot(page, 'studio-ux', 'results-01-other-settings');
  await alpha(page).fill('0.3');
  await expect(crane).not.toContainText('from other settings');
  await expect(crane).not.toContainText('not measured');
  await expect(page.getByTestId('save-marker').first()).toHaveAttribute('data-status', 'saved');

  await page.reload();
  await expect(page.getByTestId('verify-crane')).toHaveText(measuredPair);
  await expect(page.getByTestId('verify-ties')).toHaveText(measuredPair);
  await tab(page, 'Tune').click();
  await expect(page.getByTestId('preview-measured')).toHaveText(/^1measured point$/);
  await alpha(page).fill('0.5');
  await page.getByRole('spinbutton', { name: 'τ value' }).fill('0.05');
  // A point measured with another τ is not this curve's point: counted apart.
  await expect(page.getByTestId('preview-measured')).toHaveText(/^0 \(\+1 at other settings\)measured points$/);
});

test('a Verify that ends after α moved keeps the α it ran at; Verify all’s results are saved with the project', async ({ page }) => {
  await openStudio(page, studio.server.url, DESKTOP);
  await tab(page, 'Tune').click();
  await expect(page.getByTestId('preview-result')).toHaveAttribute('data-stale', 'false');
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  // α moves while the Verify of α 0.25 runs: the result stays the 0.25 edit's.
  await alpha(page).fill('0.5');
  const row = page.getByTestId('run-row');
  await expect(row).toHaveCount(1, { timeout: 5 * 60_000 });
  await expect(row).toContainText('α 0.25 · q');
  await expect(row).toHaveAttribute('data-current', 'false');
  await tab(page, 'Methods').click();
  await expect(page.getByTestId('verify-crane')).toContainText('from other settings');

  // Verify all: CRANE (at α 0.5 now) and Task Arithmetic measured, the rest cancelled.
  await page.getByRole('button', { name: 'Verify all' }).click();
  await expect(page.getByTestId('verify-task_arithmetic')).toHaveText(measuredPair, { timeout: 5 * 60_000 });
  await page.getByRole('button', { name: 'Cancel Verify', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Verify all' })).toBeVisible();
  await expect(page.getByTestId('verify-crane')).not.toContainText('from other settings');
  await expect(page.getByTestId('save-marker').first()).toHaveAttribute('data-status', 'saved');
  await screenshot(page, 'studio-ux', 'results-05-verify-all-saved');

  await page.reload();
  await expect(tab(page, 'Methods')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('verify-crane')).toHaveText(measuredPair);
  await expect(page.getByTestId('verify-crane')).not.toContainText('from other settings');
  await expect(page.getByTestId('verify-task_arithmetic')).toHaveText(measuredPair);
  await tab(page, 'Tune').click();
  await expect(page.getByTestId('run-row')).toHaveCount(3);
});

test('a preview whose request failed is marked as from other settings', async ({ page }) => {
  await openStudio(page, studio.server.url);
  await tab(page, 'Tune').click();
  await expect(page.getByTestId('preview-result')).toHaveAttribute('data-stale', 'false');
  const before = await page.getByTestId('preview-reasoning').textContent();
  // A q the analysis has no coefficients for: the engine refuses, the old numbers stay but say so.
  await page.getByRole('spinbutton', { name: 'q value' }).fill('0.7');
  await expect(page.getByTestId('preview-result')).toHaveAttribute('data-stale', 'true');
  await expect(page.getByTestId('preview-result')).toContainText('From other settings');
  await expect(page.getByTestId('preview-reasoning')).toHaveText(before ?? '');
  await screenshot(page, 'studio-ux', 'results-02-stale-preview');
});

test('the GSP panel: directions kept follow the mask; its block’s retained is the heatmap cell’s, its projector’s share labelled apart', async ({ page }) => {
  await openStudio(page, studio.server.url, DESKTOP);
  await tab(page, 'Tune').click();
  // Layer 0 · ffn.
  await pickHeatmapBlock(page, { down: 1 });
  const stats = page.getByTestId('projection-stats');
  await expect(stats).toContainText('retained ‖Π(U)‖/‖U‖, gate/up');
  const kept = stats.locator('.stat').filter({ hasText: /directions kept \(of (\d+)\)/ });
  const rank = Number(/of (\d+)/.exec((await kept.textContent()) ?? '')?.[1]);
  const keptBefore = await kept.textContent();
  // The smallest τ: every direction above it is masked, so (almost) none is kept.
  await page.getByRole('spinbutton', { name: 'τ value' }).fill('0.001');
  await expect(kept).not.toHaveText(keptBefore ?? '');
  const keptNow = Number(/^([\d.e+-]+)directions kept/.exec((await kept.textContent()) ?? '')?.[1]);
  expect(keptNow).toBeLessThan(rank);
  await expect(page.getByTestId('preview-result')).toHaveAttribute('data-stale', 'false');

  // One formula, one meaning: the panel's whole-block number is the heatmap's Retained cell at this τ.
  await page.getByRole('radiogroup', { name: 'Heatmap metric' }).getByText('Retained ‖Π(U)‖/‖U‖', { exact: true }).click();
  const cell = await heatmapCellCentre(page, demo?.layers ?? 1, 0, 1);
  await page.mouse.move(cell.x, cell.y);
  const tooltip = page.getByTestId('heatmap-tooltip');
  await expect(tooltip).toContainText('layer 0 · ffn');
  const heatmapRetained = (await tooltip.locator('tr', { hasText: 'Retained' }).locator('td').textContent()) ?? '';
  expect(heatmapRetained).toMatch(/^[\d.]+$/);
  await expect(page.getByTestId('block-retained')).toHaveText(`${heatmapRetained}retained, whole ffn block (heatmap cell)`);
  await screenshot(page, 'studio-ux', 'results-03-gsp-panel');
});

test('opening another project shows nothing of the previous one’s heatmap or points', async ({ page }) => {
  const empty = mkdtempSync(join(tmpdir(), 'crane-empty-project-'));
  try {
    await openStudio(page, studio.server.url);
    await tab(page, 'Tune').click();
    await expect(page.getByTestId('gate-heatmap')).toBeVisible();
    await openProject(page, empty);
    await tab(page, 'Tune').click();
    await expect(page.getByTestId('gate-heatmap')).toHaveCount(0);
    await expect(page.getByText('No gate metrics yet')).toBeVisible();
    await expect(page.getByTestId('preview-measured')).toHaveCount(0);
    await screenshot(page, 'studio-ux', 'results-04-new-project');
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});
