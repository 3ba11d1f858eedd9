/**
 * Issue 18, "Views researchers expect" — the preview, in Chromium against `crane serve` on an
 * analysed demo project: ΔL_A has its own axis (on the demo pair it is ~10⁴× smaller than ΔL_R),
 * and every Verify is a row of the run history (time, method, exact settings, predicted and
 * measured ΔL) that the project keeps across a reload.
 */
import { expect, test } from '@playwright/test';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { useAnalysedDemoStudio } from '../support/analysed-demo-server.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../support/demo-pair.ts';
import { screenshot } from '../support/studio-server.ts';
import { DESKTOP, openStudio, tab } from '../support/studio-page.ts';

test.skip(demoPair(ROOT) === undefined, NO_DEMO_MESSAGE);

const studio = useAnalysedDemoStudio(10 * 60_000);

const signed = String.raw`[-+]?\d[\d.]*(e[-+]?\d+)?`;

test('ΔL_A on its own axis; each Verify is a run-history row with its settings, prediction and measurement, kept across a reload', async ({ page }) => {
  await openStudio(page, studio.server.url, DESKTOP);
  await tab(page, 'Tune').click();
  await page.getByRole('spinbutton', { name: 'α value' }).fill('0.3');
  await expect(page.getByTestId('preview-result')).toHaveAttribute('data-stale', 'false');
  const axes = page.getByTestId('preview-chart').locator('.recharts-yAxis-tick-labels');
  await expect(axes).toHaveCount(2);
  // The right axis is ΔL_A's own scale: its ticks differ from the left (ΔL_R) axis' ticks.
  expect(await axes.nth(1).textContent()).not.toBe(await axes.nth(0).textContent());
  await expect(page.getByTestId('run-history-empty')).toBeVisible();

  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  const row = page.getByTestId('run-row');
  await expect(row).toHaveCount(1, { timeout: 5 * 60_000 });
  const pairOfNumbers = new RegExp(`${signed} / ${signed}`, 'g');
  await expect(row).toContainText(/^\d\d:\d\d:\d\dCRANE/);
  await expect(row).toContainText('α 0.3 · q');
  await expect(row).toContainText('current');
  // Predicted and measured, both as numbers.
  expect((await row.textContent())?.match(pairOfNumbers)).toHaveLength(2);
  await page.getByTestId('run-history').scrollIntoViewIfNeeded();
  await screenshot(page, 'studio-views', 'preview-01-run-history');

  // Another α: the run stays, no longer marked current.
  await page.getByRole('spinbutton', { name: 'α value' }).fill('0.5');
  await expect(row).toHaveAttribute('data-current', 'false');
  await expect(page.getByTestId('save-marker').first()).toHaveAttribute('data-status', 'saved');
  const before = await row.textContent();

  await page.reload();
  await tab(page, 'Tune').click();
  await expect(page.getByTestId('run-row')).toHaveCount(1);
  await expect(page.getByTestId('run-row')).toHaveText(before ?? '');
});
