/**
 * Issue 18, "Views researchers expect" — the GSP spectrum, in Chromium against `crane serve` on an
 * analysed demo project: axis titles, a legend that says what w means (1 = removed), and a hover
 * read-out of the direction under the pointer.
 */
import { expect, test } from '@playwright/test';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { useAnalysedDemoStudio } from '../support/analysed-demo-server.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../support/demo-pair.ts';
import { screenshot } from '../support/studio-server.ts';
import { DESKTOP, openStudio, pickHeatmapBlock, tab } from '../support/studio-page.ts';

test.skip(demoPair(ROOT) === undefined, NO_DEMO_MESSAGE);

const studio = useAnalysedDemoStudio(5 * 60_000);

test('the spectrum has axis titles, a legend that says w = 1 is removed, and reads out the hovered direction', async ({ page }) => {
  await openStudio(page, studio.server.url, DESKTOP);
  await tab(page, 'Tune').click();
  await pickHeatmapBlock(page, { down: 1 });
  const chart = page.getByTestId('spectrum-chart');
  await expect(chart).toBeVisible();
  await expect(chart).toContainText('mask w(σᵢ): 1 = removed, 0 = kept');
  await expect(chart).toContainText('direction i (by σ, log scale)');
  await expect(chart).toContainText('σᵢ/σ₁ (log)');

  const plot = chart.locator('.recharts-cartesian-grid');
  const box = await plot.boundingBox();
  if (box === null) throw new Error('the spectrum plot is not laid out');
  // The left edge is the largest direction (σ₁/σ₁ = 1): the mask removes it.
  await page.mouse.move(box.x + 2, box.y + box.height / 2);
  const readout = page.getByTestId('spectrum-hover');
  await expect(readout).toHaveText(/^direction 1σᵢ\/σ₁ = 1w = 1 \(removed\)$/);
  await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
  await expect(readout).toContainText(/direction \d+σᵢ\/σ₁ = /);
  await expect(readout).not.toContainText('direction 1σ');
  await screenshot(page, 'studio-views', 'spectrum-01-hover');
  await page.mouse.move(box.x - 40, box.y - 40);
  await expect(readout).toHaveCount(0);
});
