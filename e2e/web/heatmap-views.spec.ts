/**
 * Issue 18, "Views researchers expect" — the gate heatmap, in Chromium against `crane serve` on an
 * analysed demo project (4 layers × attention/ffn/norm), at 1280 × 720: axis titles; values in
 * cells at 3 significant digits (exponent form only below 1e-3); a block's S typed into the grid
 * becomes an override, marked on the cell and named in its tooltip, as is a lock; the map saved
 * as CSV (full precision, one row per layer) and PNG. What the canvas draws is read from its
 * fillText calls, recorded in the page before the studio loads.
 */
import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { ROOT } from '../../tools/setup/build-electron.ts';
import { useAnalysedDemoStudio } from '../support/analysed-demo-server.ts';
import { demoPair, NO_DEMO_MESSAGE } from '../support/demo-pair.ts';
import { screenshot } from '../support/studio-server.ts';
import { heatmapCellCentre, openStudio, tab } from '../support/studio-page.ts';

const demo = demoPair(ROOT);
test.skip(demo === undefined, NO_DEMO_MESSAGE);

const studio = useAnalysedDemoStudio(5 * 60_000);

// The root tsconfig has no DOM lib: the page-side shapes used here, structurally.
interface PageContext2D { fillText(text: string, x: number, y: number): void }
interface PageGlobals { CanvasRenderingContext2D: { prototype: PageContext2D }; __drawnText?: string[] }

/** Records every string a canvas draws into window.__drawnText (runs before the page's scripts). */
function recordCanvasText(): void {
  const page = globalThis as unknown as PageGlobals;
  const drawn: string[] = [];
  page.__drawnText = drawn;
  const fillText = page.CanvasRenderingContext2D.prototype.fillText;
  page.CanvasRenderingContext2D.prototype.fillText = function (this: PageContext2D, text: string, x: number, y: number) {
    drawn.push(String(text));
    fillText.call(this, text, x, y);
  };
}

const drawnText = (page: Page): Promise<string[]> => page.evaluate(() => [...((globalThis as unknown as PageGlobals).__drawnText ?? [])]);
const clearDrawn = (page: Page): Promise<void> => page.evaluate(() => void (globalThis as unknown as PageGlobals).__drawnText?.splice(0));

const cellCentre = (page: Page, layer: number, row: number) => heatmapCellCentre(page, demo?.layers ?? 1, layer, row);

async function download(page: Page, button: string): Promise<{ name: string; bytes: Buffer }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
  return { name: file.suggestedFilename(), bytes: readFileSync(await file.path()) };
}

test('axis titles, values in cells, S edited in the grid and marked, a lock named in the tooltip, CSV and PNG', async ({ page }) => {
  await page.addInitScript(recordCanvasText);
  await openStudio(page, studio.server.url);
  await tab(page, 'Tune').click();
  const heatmap = page.getByTestId('gate-heatmap');
  await expect(heatmap).toHaveAttribute('aria-label', `S_CTG heatmap: ${demo?.layers} layers × 3 groups. Arrow keys move, Enter selects.`);
  await expect.poll(() => drawnText(page)).toEqual(expect.arrayContaining(['layer', 'block', 'attention', 'ffn', 'norm']));

  // The CSV: a header of blocks, one row per layer, float32 values in full.
  const csv = await download(page, 'Export CSV');
  expect(csv.name).toBe('crane-gate.csv');
  const [header, ...rows] = csv.bytes.toString('utf8').trim().split('\n');
  expect(header).toBe('layer,attention,ffn,norm');
  expect(rows.map((r) => r.split(',')[0])).toEqual(Array.from({ length: demo?.layers ?? 0 }, (_, i) => String(i)));
  const values = rows.flatMap((r) => r.split(',').slice(1).map(Number));
  expect(values.every(Number.isFinite)).toBe(true);

  // Values in cells: each S at 3 significant digits, fixed form down to 1e-3.
  await clearDrawn(page);
  await page.getByRole('checkbox', { name: 'Values in cells' }).check();
  await expect.poll(async () => (await drawnText(page)).filter((t) => /^[\d.e+-]+$/.test(t)).length).toBeGreaterThanOrEqual(values.length);
  const numbers = (await drawnText(page)).filter((t) => /^[\d.e+-]+$/.test(t));
  for (const value of values) {
    const shown = Math.abs(value) < 1e-3 ? value.toExponential(2) : String(Number(value.toPrecision(3)));
    expect(numbers, `S ${value} drawn as ${shown}`).toContain(shown);
  }
  expect(numbers.filter((t) => t.includes('e')).every((t) => Math.abs(Number(t)) < 1e-3)).toBe(true);

  // Layer 3 · attention's S typed into the grid: an override, marked, named by the tooltip.
  const edited = await cellCentre(page, 3, 0);
  await page.mouse.dblclick(edited.x, edited.y);
  const field = page.getByRole('spinbutton', { name: 'Gate S of layer 3 · attention' });
  await field.fill('0.5');
  await field.press('Enter');
  await page.mouse.move(edited.x, edited.y);
  await expect(page.getByTestId('heatmap-tooltip-override')).toHaveText('gate overridden: S = 0.5');
  // α·S follows the override: 0.25 × 0.5.
  await expect(page.getByTestId('heatmap-tooltip')).toContainText(/α·S\s*0\.125/);

  // Layer 1 · ffn locked from the block editor: its tooltip says it keeps θ_I.
  const locked = await cellCentre(page, 1, 1);
  await page.mouse.click(locked.x, locked.y);
  await expect(page.getByTestId('override-editor')).toContainText('Block: layer 1 · ffn');
  await page.getByTestId('override-editor').getByLabel('Lock (keep θ_I)').check();
  await page.mouse.move(locked.x, locked.y);
  await expect(page.getByTestId('heatmap-tooltip-override')).toHaveText('locked: keeps θ_I (S = 0)');
  await screenshot(page, 'studio-views', 'heatmap-01-marks-values-1280');

  const png = await download(page, 'Export PNG');
  expect(png.name).toBe('crane-gate.png');
  expect(png.bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
});
