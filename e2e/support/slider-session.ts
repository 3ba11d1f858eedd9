/**
 * The slider session the 48-layer spec and `npm run bench:ui` (tools/bench-ui.ts) share: analyse,
 * open Tune on the α·S heatmap, move α, select a block, move τ, and read the slider-to-paint p95
 * of each chart that follows the slider (latency.ts). Written against Playwright's Page API, not
 * the test runner's `expect`, so the benchmark script can drive it too.
 */
import type { Page } from '@playwright/test';
import { ANALYSIS_STAGES } from '../../engine/protocol/common-schemas.ts';
import { clearLatency, nudge, p95s, settleSamples, type LatencyReport } from './latency.ts';

export const ALPHA_PRESSES = 25;
export const TAU_PRESSES = 10;

/** p95 of the charts that follow α (heatmap and preview), then of the spectrum that follows τ. */
export interface SliderLatency {
  readonly alpha: LatencyReport;
  readonly tau: LatencyReport;
}

export interface TuneOptions {
  /** Named before analysing: the synthetic engine analyses once a project folder is set. */
  readonly projectFolder?: string;
  readonly grouping?: 'Per projection';
  readonly analysisTimeoutMs?: number;
}

/** Runs Analyze to the end, then shows Tune with the α·S metric (the one that follows α). */
export async function analyzeAndTune(page: Page, { projectFolder, grouping, analysisTimeoutMs = 5 * 60_000 }: TuneOptions = {}): Promise<void> {
  if (projectFolder !== undefined) await page.getByLabel('Project folder').fill(projectFolder);
  await page.getByRole('button', { name: 'Analysis', exact: true }).click();
  await page.getByRole('button', { name: 'Analyze', exact: true }).click();
  // Wait for the last stage, not the gates: a stage still running would load the CPU the slider timings share.
  await page.getByTestId(`stage-${ANALYSIS_STAGES.at(-1)}`).filter({ hasText: /done|cached/ }).waitFor({ timeout: analysisTimeoutMs });
  await page.getByRole('button', { name: 'Tune', exact: true }).click();
  if (grouping !== undefined) await page.getByRole('radiogroup', { name: 'Block grouping' }).getByText(grouping, { exact: true }).click();
  await page.getByRole('radiogroup', { name: 'Heatmap metric' }).getByText('α·S', { exact: true }).click();
}

/** Selects a heatmap block by keyboard (one step right, one down), so the projection view shows its spectrum. */
export async function selectBlock(page: Page): Promise<void> {
  await page.getByTestId('gate-heatmap').focus();
  for (const key of ['ArrowRight', 'ArrowDown', 'Enter']) await page.keyboard.press(key);
  await page.getByTestId('projection-stats').filter({ hasText: 'directions removed' }).waitFor();
}

/** From Tune with nothing selected: moves α, selects a block, moves τ. */
export async function measureSliders(page: Page): Promise<SliderLatency> {
  await clearLatency(page);
  await nudge(page, /^α/, ALPHA_PRESSES);
  await settleSamples(page, ['heatmap', 'preview'], ALPHA_PRESSES);
  const alpha = await p95s(page, ['heatmap', 'preview']);
  await selectBlock(page);
  await clearLatency(page);
  await nudge(page, /^τ/, TAU_PRESSES);
  await settleSamples(page, ['spectrum'], TAU_PRESSES);
  const tau = await p95s(page, ['spectrum']);
  return { alpha, tau };
}
