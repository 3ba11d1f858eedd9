/**
 * Issue 15 item 3 and issue 18's "hide controls that do not apply", in Chromium against
 * `crane serve` on a tiny analysed Qwen3-MoE project (4 layers × 8 experts, top-2): the heatmap's
 * layer × expert view from the real analysis (S per expert, routing of D_R / D_A / D_F), one
 * expert side by side, and the Router setting offered for the MoE pair only.
 */
import { expect, test, type Page } from '@playwright/test';
import { rmSync } from 'node:fs';
import { ROOT } from '../../tools/setup/build-electron.ts';
import type { ServeProcess } from '../../tools/setup/serve-process.ts';
import { analysedMoeDataDir, TINY_MOE } from '../support/analysed-moe.ts';
import { collectPageErrors } from '../support/console-errors.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../support/demo-pair.ts';
import { demoProjectDir, screenshot, serveDataDir } from '../support/studio-server.ts';
import { openProject, openStudio, tab } from '../support/studio-page.ts';

let server: ServeProcess | undefined;
let dataDir = '';
let projectDir = '';

test.beforeAll(async () => {
  test.setTimeout(10 * 60_000);
  ({ dataDir, projectDir } = await analysedMoeDataDir());
  server = await serveDataDir(dataDir);
});

test.afterAll(async () => {
  await server?.stop();
  if (dataDir !== '') rmSync(dataDir, { recursive: true, force: true });
});

/** The studio's address; the server exists once beforeAll has run. */
const studioUrl = (): string => {
  if (server === undefined) throw new Error('no studio server: beforeAll failed');
  return server.url;
};

async function openMoeProject(page: Page): Promise<void> {
  await openStudio(page, studioUrl());
  await openProject(page, projectDir);
  await tab(page, 'Tune').click();
}

test('the heatmap shows layer × expert from the analysis, with routing per calibration set', async ({ page }) => {
  test.setTimeout(5 * 60_000);
  const errors = collectPageErrors(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openMoeProject(page);
  await expect(page.getByTestId('gate-heatmap')).toBeVisible();
  await page.getByRole('radio', { name: 'Layer × expert' }).check();
  const map = page.getByTestId('expert-heatmap');
  await expect(map).toHaveAttribute('aria-label', `D_R − D_A routing heatmap: ${TINY_MOE.layers} layers × ${TINY_MOE.experts} experts. Arrow keys move, Enter selects.`);
  await expect(page.getByTestId('expert-summary')).toHaveText(/top-2 routing; tokens counted: D_R [1-9]\d*, D_A [1-9]\d*, D_F [1-9]\d*/);
  await screenshot(page, 'moe-experts', 'experts-01-routing');

  const box = await map.boundingBox();
  if (box === null) throw new Error('the expert heatmap has no box');
  // Layer 1 of 4, expert 3 of 8: the plot starts 92 px in (the row labels) and ends 12 px before the frame's edge.
  const plotWidth = box.width - 92 - 8;
  const rowHeight = 26;
  await page.mouse.move(box.x + 92 + plotWidth * (1.5 / TINY_MOE.layers), box.y + 4 + rowHeight * 3.5);
  const tooltip = page.getByTestId('expert-tooltip');
  await expect(tooltip).toContainText('layer 1 · expert 3');
  await expect(tooltip).toContainText(/D_R routed · p̄\d+ of \d+/);
  await screenshot(page, 'moe-experts', 'experts-02-tooltip');

  await page.getByRole('combobox', { name: 'Expert metric' }).selectOption('gate');
  await expect(map).toHaveAttribute('aria-label', /^S per expert heatmap/);
  await page.getByRole('checkbox', { name: 'Values in cells' }).check();
  // Expert 5 of layer 2 set by hand in the grid: the block editor shows the override.
  await page.mouse.dblclick(box.x + 92 + plotWidth * (2.5 / TINY_MOE.layers), box.y + 4 + rowHeight * 5.5);
  const field = page.getByRole('spinbutton', { name: 'Gate S of layer 2 · expert 5' });
  await field.fill('0.5');
  await field.press('Enter');
  await page.mouse.click(box.x + 92 + plotWidth * (2.5 / TINY_MOE.layers), box.y + 4 + rowHeight * 5.5);
  await expect(page.getByTestId('override-editor')).toContainText('Block: layer 2 · expert.5');
  await expect(page.getByRole('checkbox', { name: 'Override gate' })).toBeChecked();
  await page.mouse.click(box.x + 92 + plotWidth * (1.5 / TINY_MOE.layers), box.y + 4 + rowHeight * 3.5);
  await expect(page.getByTestId('override-editor')).toContainText(/Computed S_CTG = \d/);
  await screenshot(page, 'moe-experts', 'experts-03-gate');

  await page.getByRole('button', { name: 'Compare layer 1 · expert.3 side by side' }).click();
  await expect(page.getByText('A · layer 1 · expert.3 · CRANE')).toBeVisible();
  await expect(page.getByTitle('model.layers.1.mlp.experts.3.gate_proj.weight').first()).toBeVisible({ timeout: 2 * 60_000 });
  await screenshot(page, 'moe-experts', 'experts-04-side-by-side');
  expect(errors).toEqual([]);
});

test('the Router setting is offered for the MoE pair, not for the dense demo pair', async ({ page }) => {
  await openMoeProject(page);
  await expect(page.getByText('Router, think rows, lm_head')).toBeVisible();
  test.skip(demoPair(ROOT) === undefined, NO_DEMO_MESSAGE);
  await openProject(page, demoProjectDir(dataDir));
  await tab(page, 'Tune').click();
  await expect(page.getByText('Think rows, lm_head')).toBeVisible();
  await expect(page.getByText('Router', { exact: true })).toHaveCount(0);
});
