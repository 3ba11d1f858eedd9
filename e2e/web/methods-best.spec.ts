/**
 * Issue 18, "Views researchers expect" — Methods, in Chromium against `crane serve` on an analysed
 * demo project: each baseline's parameters are editable, and the best measured ΔL_R and ΔL_A
 * among the results at the settings on screen are marked (a result at other settings is not
 * compared).
 */
import { expect, test } from '@playwright/test';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { useAnalysedDemoStudio } from '../support/analysed-demo-server.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../support/demo-pair.ts';
import { screenshot } from '../support/studio-server.ts';
import { DESKTOP, openStudio, tab } from '../support/studio-page.ts';

test.skip(demoPair(ROOT) === undefined, NO_DEMO_MESSAGE);

const studio = useAnalysedDemoStudio(10 * 60_000);

const measuredPair = /^[-+]?[\d.e-]+ \/ [-+]?[\d.e-]+/;

test('Methods marks the best measured ΔL_R and ΔL_A among results at the current settings', async ({ page }) => {
  await openStudio(page, studio.server.url, DESKTOP);
  await tab(page, 'Methods').click();
  await page.getByRole('button', { name: 'Verify CRANE', exact: true }).click();
  await expect(page.getByTestId('verify-crane')).toHaveText(measuredPair, { timeout: 5 * 60_000 });
  // One method measured: nothing to compare it with.
  await expect(page.locator('.badge.best')).toHaveCount(0);
  await page.getByRole('button', { name: 'Verify Task Arithmetic', exact: true }).click();
  await expect(page.getByTestId('verify-task_arithmetic')).toHaveText(measuredPair, { timeout: 5 * 60_000 });

  const craneCell = page.getByTestId('verify-crane');
  const taCell = page.getByTestId('verify-task_arithmetic');
  const lossesOf = async (cell: typeof craneCell) => ((await cell.textContent()) ?? '').match(/[-+]?\d[\d.]*(e[-+]?\d+)?/g)?.slice(0, 2).map(Number) ?? [];
  const [craneR = NaN, craneA = NaN] = await lossesOf(craneCell);
  const [taR = NaN, taA = NaN] = await lossesOf(taCell);
  const [bestR, otherR] = craneR <= taR ? [craneCell, taCell] : [taCell, craneCell];
  await expect(bestR).toContainText('best ΔL_R');
  await expect(otherR).not.toContainText('best ΔL_R');
  await expect(craneA <= taA ? craneCell : taCell).toContainText('best ΔL_A');
  await screenshot(page, 'studio-views', 'methods-01-best');

  // Task Arithmetic's λ edited: its result is from other settings and no longer compared.
  await page.getByRole('spinbutton', { name: /Task Arithmetic λ/ }).fill('0.6');
  await expect(page.getByTestId('verify-task_arithmetic')).toContainText('from other settings');
  await expect(page.locator('.badge.best')).toHaveCount(0);
});
