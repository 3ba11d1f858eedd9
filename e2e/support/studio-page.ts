/**
 * What the specs do to the studio page again and again: open it (at a viewport), switch views,
 * open a project, and pick a block in the gate heatmap by keyboard as a researcher would.
 */
import { expect, type Locator, type Page } from '@playwright/test';

export interface Viewport {
  readonly width: number;
  readonly height: number;
}

/** The size issue 18's views were looked at; 1280 × 720 (Playwright's default) is the other. */
export const DESKTOP: Viewport = { width: 1440, height: 900 };

/** A view's button in the header (Pair & project, Analysis, Tune, Side by side, Methods). */
export const tab = (page: Page, name: string): Locator => page.getByRole('button', { name, exact: true });

/** Loads the studio at `url`, first resizing the page when a viewport is given. */
export async function openStudio(page: Page, url: string, viewport?: Viewport): Promise<void> {
  if (viewport !== undefined) await page.setViewportSize(viewport);
  await page.goto(url);
}

/** Opens the project in `dir` from the Pair & project view and waits until the page says so. */
export async function openProject(page: Page, dir: string): Promise<void> {
  await tab(page, 'Pair & project').click();
  await page.getByLabel('Project folder').fill(dir);
  await page.getByRole('button', { name: 'Open project' }).click();
  await expect(page.getByText(`Open: ${dir}`)).toBeVisible();
}

/**
 * Selects a gate-heatmap block with the keyboard: the cursor starts at the hovered block, else the
 * selected one, else layer 0's first block; `right` steps along the layers, `down` along the
 * blocks, Enter selects.
 */
export async function pickHeatmapBlock(page: Page, { right = 0, down = 0 }: { right?: number; down?: number } = {}): Promise<void> {
  await page.getByTestId('gate-heatmap').focus();
  for (let i = 0; i < right; i++) await page.keyboard.press('ArrowRight');
  for (let i = 0; i < down; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
}

/**
 * The centre of a gate-heatmap cell in page pixels (HeatmapCanvas's layout): the plot starts
 * 92 px in (the row labels) and ends 12 px before the canvas's edge; rows are 26 px tall.
 */
export async function heatmapCellCentre(page: Page, layers: number, layer: number, row: number): Promise<{ x: number; y: number }> {
  const box = await page.getByTestId('gate-heatmap').boundingBox();
  if (box === null) throw new Error('the gate heatmap is not laid out');
  const plotWidth = box.width - 92 - 12;
  return { x: box.x + 92 + plotWidth * ((layer + 0.5) / layers), y: box.y + 4 + 26 * (row + 0.5) };
}
