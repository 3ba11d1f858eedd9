/**
 * Issue 18, items 4 and 7, in Chromium against `crane serve`:
 * - the pair verdict tells "cannot merge" (a structural config field differs), "can merge with
 *   caveats" (rope_theta ×100, a tensor missing) and "identical" apart, and a failed open shows
 *   no verdict at all (never the previous pair's);
 * - a missing calibration file and an existing export folder each get a code that says what
 *   happened and a plain message naming the path, and the error goes once the path is changed.
 */
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { useAnalysedDemoStudio } from '../support/analysed-demo-server.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../support/demo-pair.ts';
import { copyWithConfig, copyWithoutTensor } from '../support/edited-checkpoint.ts';
import { screenshot } from '../support/studio-server.ts';
import { openStudio, tab } from '../support/studio-page.ts';

const demo = demoPair(ROOT);
test.skip(demo === undefined, NO_DEMO_MESSAGE);

const studio = useAnalysedDemoStudio(10 * 60_000);

async function openPair(page: Page, instruct: string, thinking: string): Promise<void> {
  await page.getByLabel('Instruct checkpoint (θ_I, edited)').fill(instruct);
  await page.getByLabel('Thinking checkpoint (θ_T)').fill(thinking);
  await page.getByRole('button', { name: 'Open pair' }).click();
}

test('the verdict: identical, caveats, and none under a failed open', async ({ page }) => {
  const instruct = demo?.instruct ?? '';
  const ropeTheta = join(studio.dataDir, 'thinking-rope-x100');
  copyWithConfig(demo?.thinking ?? '', ropeTheta, (config) => ({ ...config, rope_theta: Number(config['rope_theta']) * 100 }));
  await openStudio(page, studio.server.url);
  const verdict = page.getByTestId('pair-verdict');
  await expect(verdict).toBeVisible();

  await openPair(page, instruct, instruct);
  await expect(verdict).toHaveAttribute('data-verdict', 'identical');
  await expect(verdict).toContainText('Identical');

  await openPair(page, instruct, ropeTheta);
  await expect(verdict).toHaveAttribute('data-verdict', 'caveats');
  await expect(verdict).toContainText('Can merge, with 1 caveat');
  await expect(page.getByTestId('compatibility-report')).toContainText('"rope_theta" differs');
  await screenshot(page, 'studio-ux', 'errors-01-caveats');

  await openPair(page, instruct, join(studio.dataDir, 'no-such-folder'));
  await expect(page.getByRole('alert')).toContainText('Open pair failed');
  await expect(verdict).toHaveCount(0);
  await screenshot(page, 'studio-ux', 'errors-02-failed-open');
});

test('cannot merge: a structural config difference is refused; a missing tensor is a caveat naming it', async ({ page }) => {
  const instruct = demo?.instruct ?? '';
  const otherActivation = join(studio.dataDir, 'thinking-gelu');
  copyWithConfig(demo?.thinking ?? '', otherActivation, (config) => ({ ...config, hidden_act: 'gelu' }));
  const missing = 'model.layers.1.mlp.down_proj.weight';
  const withoutTensor = join(studio.dataDir, 'thinking-without-down-proj');
  copyWithoutTensor(demo?.thinking ?? '', withoutTensor, missing);
  await openStudio(page, studio.server.url);
  const verdict = page.getByTestId('pair-verdict');
  await expect(verdict).toHaveAttribute('data-verdict', 'compatible');
  // The project has finished opening (its pair included): nothing on its way overwrites the fields.
  await expect(page.getByTestId('save-marker').first()).toHaveAttribute('data-status', 'saved');

  await openPair(page, instruct, otherActivation);
  await expect(verdict).toHaveAttribute('data-verdict', 'refused');
  await expect(verdict).toContainText('Cannot merge: 1 blocking problem');
  await expect(page.getByTestId('compatibility-report')).toContainText('"hidden_act" differs');
  await screenshot(page, 'studio-ux', 'errors-05-refused');

  await openPair(page, instruct, withoutTensor);
  await expect(verdict).toHaveAttribute('data-verdict', 'caveats');
  const onlyInInstruct = page.getByTestId('compatibility-report').locator('details', { has: page.locator('summary', { hasText: 'Only in Instruct' }) });
  await onlyInInstruct.locator('summary').click();
  await expect(onlyInInstruct).toContainText(missing);
});

test('a missing calibration file says not-found with its path, and the error goes once the path is fixed', async ({ page }) => {
  await openStudio(page, studio.server.url);
  await expect(page.getByTestId('save-marker').first()).toHaveAttribute('data-status', 'saved');
  await tab(page, 'Analysis').click();
  await page.getByText('Calibration sets and limits').click();
  const field = page.getByLabel('D_R reasoning prompts (JSONL)');
  const good = await field.inputValue();
  const missing = join(studio.dataDir, 'missing-reasoning.jsonl');
  await field.fill(missing);
  await page.getByRole('button', { name: 'Analyze', exact: true }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'Analysis failed' });
  await expect(alert).toContainText(`not-found ${missing}: file not found`);
  await expect(alert).not.toContainText('ENOENT');
  await screenshot(page, 'studio-ux', 'errors-03-missing-calibration');
  await field.fill(good);
  await expect(alert).toHaveCount(0);
});

test('an existing export folder says already-exists, and the error goes once the folder is changed', async ({ page }) => {
  const existing = join(studio.dataDir, 'existing-export');
  mkdirSync(existing);
  await openStudio(page, studio.server.url);
  await page.getByRole('button', { name: 'Export…' }).click();
  const dialog = page.getByRole('dialog');
  const folder = dialog.getByLabel(/Output folder/);
  await folder.fill(existing);
  await dialog.getByRole('button', { name: 'Export', exact: true }).click();
  const alert = dialog.getByRole('alert');
  await expect(alert).toContainText(`already-exists ${existing}: output folder already exists`);
  await screenshot(page, 'studio-ux', 'errors-04-export-exists');
  await folder.fill(join(studio.dataDir, 'new-export'));
  await expect(alert).toHaveCount(0);
});
