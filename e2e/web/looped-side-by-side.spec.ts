/**
 * Issue 16 item 3, "side-by-side can compare a block's contribution in each pass", in Chromium
 * against `crane serve` on a tiny analysed looped pair (NanbeigeForCausalLM, two passes over the
 * same layers): each pane shows its block's first-order ΔL_R and ΔL_A per pass under the pane's
 * method (getBlockPasses) with the per-pass conflict share, and a second method's pane its own.
 */
import { expect, test } from '@playwright/test';
import { rmSync } from 'node:fs';
import type { ServeProcess } from '../../tools/setup/serve-process.ts';
import { analysedTinyDataDir } from '../support/analysed-tiny.ts';
import { collectPageErrors } from '../support/console-errors.ts';
import { screenshot, serveDataDir } from '../support/studio-server.ts';
import { DESKTOP, openProject, openStudio, pickHeatmapBlock, tab } from '../support/studio-page.ts';

let server: ServeProcess | undefined;
let dataDir = '';
let projectDir = '';

test.beforeAll(async () => {
  test.setTimeout(10 * 60_000);
  ({ dataDir, projectDir } = await analysedTinyDataDir('tiny-looped', { layers: 2, loop: { numLoops: 2 } }));
  server = await serveDataDir(dataDir);
});

test.afterAll(async () => {
  await server?.stop();
  if (dataDir !== '') rmSync(dataDir, { recursive: true, force: true });
});

const SIGNED = /^[+-]?(\d[\d.]*(e[+-]\d+)?|0)$/;

test('side by side shows a block’s first-order ΔL in pass 1 and pass 2, per method', async ({ page }) => {
  test.setTimeout(5 * 60_000);
  const errors = collectPageErrors(page);
  if (server === undefined) throw new Error('no studio server: beforeAll failed');
  await openStudio(page, server.url, DESKTOP);
  await openProject(page, projectDir);
  await tab(page, 'Tune').click();
  await expect(page.getByTestId('gate-heatmap')).toBeVisible({ timeout: 60_000 });
  await pickHeatmapBlock(page, { right: 1 });

  await tab(page, 'Side by side').click();
  const paneA = page.getByTestId('pane-0');
  await expect(paneA.getByRole('heading', { level: 2 })).toHaveText('A · layer 1 · attention · CRANE');
  const table = paneA.getByRole('table', { name: 'Pane A per-pass ΔL' });
  await expect(table).toBeVisible({ timeout: 60_000 });
  await expect(table.getByRole('columnheader')).toHaveText(['Tensor', 'ΔL_R pass 1', 'ΔL_R pass 2', 'ΔL_A pass 1', 'ΔL_A pass 2']);
  const rows = table.getByTestId('pass-row');
  // q, k, v, o and the whole block (the tiny model has no q/k norms)
  await expect(rows).toHaveCount(5);
  await expect(rows.last().getByRole('rowheader')).toHaveText(/^whole block/);
  await expect(rows.first().getByRole('rowheader')).toHaveText(/^self_attn\.q_proj/);
  const cells = await rows.first().getByRole('cell').allTextContents();
  expect(cells).toHaveLength(4);
  for (const cell of cells) expect(cell).toMatch(SIGNED);
  await expect(paneA.getByTestId('pass-conflict')).toHaveText(/^Conflict share of δ \(the gate’s raw update\): pass 1 [\d.]+% · pass 2 [\d.]+%$/);

  await page.getByRole('radiogroup', { name: 'Comparison mode' }).getByText('One block, two methods', { exact: true }).click();
  await page.getByLabel('Pane B method').selectOption({ label: 'Task Arithmetic' });
  const paneB = page.getByTestId('pane-1');
  await expect(paneB.getByRole('heading', { level: 2 })).toHaveText('B · layer 1 · attention · Task Arithmetic');
  const tableB = paneB.getByRole('table', { name: 'Pane B per-pass ΔL' });
  await expect(tableB.getByTestId('pass-row')).toHaveCount(5, { timeout: 60_000 });
  // another method's update meets the same per-pass gradients: other numbers
  expect(await tableB.getByTestId('pass-row').first().getByRole('cell').allTextContents()).not.toEqual(cells);
  await screenshot(page, 'looped-passes', 'side-by-side-per-pass');
  expect(errors).toEqual([]);
});
