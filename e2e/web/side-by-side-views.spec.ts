/**
 * Issue 18, "Views researchers expect" — side by side, in Chromium against `crane serve` on an
 * analysed demo project: pane A follows the heatmap selection; |Δ| maps in the tensor's aspect
 * with a colour scale and hover values; Instruct/Thinking/Edited histograms overlaid; a baseline
 * is not labelled with a projection it does not have.
 */
import { expect, test } from '@playwright/test';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { useAnalysedDemoStudio } from '../support/analysed-demo-server.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../support/demo-pair.ts';
import { screenshot } from '../support/studio-server.ts';
import { DESKTOP, openStudio, pickHeatmapBlock, tab } from '../support/studio-page.ts';

test.skip(demoPair(ROOT) === undefined, NO_DEMO_MESSAGE);

const studio = useAnalysedDemoStudio(5 * 60_000);

test('side by side follows the heatmap selection, scales and reads out |Δ|, overlays histograms, names a baseline’s update', async ({ page }) => {
  await openStudio(page, studio.server.url, DESKTOP);
  await tab(page, 'Tune').click();
  await pickHeatmapBlock(page, { right: 1 });
  await expect(page.getByText('Layer 1 · attn_input')).toBeVisible();

  await tab(page, 'Side by side').click();
  const paneA = page.getByTestId('pane-0');
  await expect(paneA.getByRole('heading', { level: 2 })).toHaveText('A · layer 1 · attention · CRANE');
  const first = paneA.getByTestId('tensor-compare').first();
  await expect(first).toBeVisible({ timeout: 60_000 });
  await expect(first.getByRole('img', { name: '|Δ| before GSP projection' })).toBeVisible();
  await expect(first.getByLabel(/^\|Δ\| \(mean per cell\) colour scale from 0 to /)).toBeVisible();
  // Overlaid value histograms: three outlines in one chart.
  await expect(first.getByTestId('histogram-overlay').first().locator('path')).toHaveCount(3);

  // The canvas has the tensor's aspect (its shape is in the heading).
  const shape = /\[(\d+) × (\d+)\]/.exec((await first.getByRole('heading', { level: 3 }).textContent()) ?? '');
  const map = first.getByRole('img', { name: '|Δ| after GSP projection (the edit)' });
  const box = await map.boundingBox();
  if (shape === null || box === null) throw new Error('no 2-D tensor or no map on screen');
  expect(box.width / box.height).toBeCloseTo(Number(shape[2]) / Number(shape[1]), 1);
  // The top-left corner is cell (0, 0): the first rows and columns of the tensor.
  await map.hover({ position: { x: 1.5, y: 1.5 } });
  await expect(first.getByTestId('matrix-readout').nth(1)).toHaveText(/^rows? 0(–\d+)? · cols? 0(–\d+)?: \|Δ\| [\d.e-]+ \(mean\)$/);
  await screenshot(page, 'studio-views', 'side-by-side-01-crane');

  // Picking a block in pane A selects it in the heatmap.
  await page.getByLabel('Pane A layer').fill('2');
  await tab(page, 'Tune').click();
  await expect(page.getByText('Layer 2 · attn_input')).toBeVisible();
  await tab(page, 'Side by side').click();

  await page.getByRole('radiogroup', { name: 'Comparison mode' }).getByText('One block, two methods', { exact: true }).click();
  await page.getByLabel('Pane B method').selectOption({ label: 'TIES' });
  const paneB = page.getByTestId('pane-1');
  await expect(paneB.getByRole('heading', { level: 2 })).toHaveText('B · layer 2 · attention · TIES');
  const ties = paneB.getByTestId('tensor-compare').first();
  await expect(ties.getByRole('img', { name: '|Δ| TIES update (no projection)' })).toBeVisible({ timeout: 60_000 });
  await expect(ties).not.toContainText('GSP');
  await screenshot(page, 'studio-views', 'side-by-side-02-ties');
});
