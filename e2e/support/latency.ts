/**
 * Slider-to-paint latency from the page (window.__craneLatency, see renderer/src/lib/latency.ts)
 * and a way to move sliders that does not itself load the frames being measured.
 */
import { errors, type Page } from '@playwright/test';

export type LatencyKind = 'heatmap' | 'preview' | 'spectrum';
export type LatencyReport = Record<string, { p95: number | null; n: number }>;
// The root tsconfig has no DOM lib: the page-side shape, structurally.
interface LatencyRecorder { samples: Record<LatencyKind, number[]>; p95(kind: LatencyKind): number | null; clear(): void }

export const p95s = (page: Page, kinds: readonly LatencyKind[]): Promise<LatencyReport> =>
  page.evaluate((wanted) => {
    // Self-contained: Playwright sends this function's source to the page.
    const l = (globalThis as { __craneLatency?: LatencyRecorder }).__craneLatency;
    return Object.fromEntries(wanted.map((k) => [k, { p95: l?.p95(k) ?? null, n: l?.samples[k].length ?? 0 }]));
  }, kinds);

export const clearLatency = (page: Page): Promise<void> =>
  page.evaluate(() => (globalThis as { __craneLatency?: { clear(): void } }).__craneLatency?.clear());

/**
 * Waits (up to `timeoutMs`) until each kind has `count` samples, so a paint still on its way is
 * in the p95. Inputs that land in one frame yield one sample, so fewer is not an error: the
 * caller reads whatever arrived.
 */
export async function settleSamples(page: Page, kinds: readonly LatencyKind[], count: number, timeoutMs = 2_000): Promise<void> {
  // Self-contained: Playwright sends this function's source to the page.
  const arrived = ([wanted, n]: readonly [readonly LatencyKind[], number]) => {
    const l = (globalThis as { __craneLatency?: LatencyRecorder }).__craneLatency;
    return wanted.every((k) => (l?.samples[k].length ?? 0) >= n);
  };
  try {
    await page.waitForFunction(arrived, [kinds, count] as const, { timeout: timeoutMs });
  } catch (error) {
    if (!(error instanceof errors.TimeoutError)) throw error;
  }
}

/**
 * Presses an arrow key on a slider, one input at a time, as a researcher nudging it would. The
 * keys go through Chromium's input pipeline (CDP Input.dispatchKeyEvent, trusted events) rather
 * than page.keyboard: a Playwright action takes trace snapshots of the page right after it, in
 * the middle of the interval being measured.
 */
export async function nudge(page: Page, name: RegExp, presses: number): Promise<void> {
  await page.getByRole('slider', { name }).focus();
  const cdp = await page.context().newCDPSession(page);
  const key = { key: 'ArrowRight', code: 'ArrowRight', windowsVirtualKeyCode: 39, nativeVirtualKeyCode: 39 };
  for (let i = 0; i < presses; i++) {
    await cdp.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', ...key });
    await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', ...key });
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  await cdp.detach();
}
