/**
 * Slider-to-paint latency on a 48-layer × 128-expert analysis (the size of Qwen3-30B-A3B),
 * per projection: the in-page synthetic engine (?engine=synthetic) supplies an analysis of that
 * shape, so this measures the UI at scale without a 30B checkpoint. Aim: p95 under 100 ms.
 */
import { expect, test } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { startServeProcess, type ServeProcess } from '../../tools/setup/serve-process.ts';
import { collectPageErrors } from '../support/console-errors.ts';
import { clearLatency, nudge, p95s } from '../support/latency.ts';

let server: ServeProcess;
let scratch: string;
test.use({ trace: { mode: 'retain-on-failure', screenshots: false } });

test.beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'crane-latency-'));
  process.env['CRANE_DATA_DIR'] = join(scratch, 'data');
  server = await startServeProcess({ root: ROOT, uiDir: join(ROOT, 'dist', 'renderer') });
});

test.afterAll(async () => {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

test('48 layers × 128 experts, per projection: moving α and τ repaints within 100 ms (p95)', async ({ page }) => {
  const errors = collectPageErrors(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${server.url}&engine=synthetic&layers=48&experts=128`);
  // The synthetic engine analyses once a project folder is named (nothing is written there).
  await page.getByLabel('Project folder').fill('/projects/synthetic');
  await page.getByRole('button', { name: 'Analysis', exact: true }).click();
  await page.getByRole('button', { name: 'Analyze', exact: true }).click();
  await expect(page.getByTestId('stage-gates')).toContainText(/done|cached/, { timeout: 60_000 });
  await page.getByRole('button', { name: 'Tune', exact: true }).click();
  await page.getByRole('radiogroup', { name: 'Block grouping' }).getByText('Per projection', { exact: true }).click();
  await page.getByRole('radiogroup', { name: 'Heatmap metric' }).getByText('α·S', { exact: true }).click();
  await expect(page.getByTestId('gate-heatmap')).toHaveAttribute('aria-label', /: 48 layers × \d+ /);
  await clearLatency(page);
  await nudge(page, /^α/, 25);
  const alpha = await p95s(page, ['heatmap', 'preview']);
  // Select a block (keyboard on the heatmap) so the projection view shows its spectrum.
  await page.getByTestId('gate-heatmap').focus();
  for (const key of ['ArrowRight', 'ArrowDown', 'Enter']) await page.keyboard.press(key);
  await expect(page.getByTestId('projection-stats')).toContainText('directions removed');
  await clearLatency(page);
  await nudge(page, /^τ/, 10);
  const tau = await p95s(page, ['spectrum']);
  await page.screenshot({ path: join(ROOT, 'test-results', 'journey', 'synthetic-48x128.png') });
  console.log(`[latency] 48 layers × 128 experts, slider-to-paint p95 (ms) while moving α: ${JSON.stringify(alpha)}; while moving τ: ${JSON.stringify(tau)}`);
  for (const [report, kind] of [[alpha, 'heatmap'], [alpha, 'preview'], [tau, 'spectrum']] as const) {
    expect(report[kind]?.n, `${kind} samples`).toBeGreaterThan(0);
    expect(report[kind]?.p95 ?? Infinity, `${kind} p95`).toBeLessThan(100);
  }
  expect(errors).toEqual([]);
});
