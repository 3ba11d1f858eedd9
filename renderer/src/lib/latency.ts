/**
 * Slider-to-paint latency. A control marks the input (`markInput`); a view that has just drawn
 * the state caused by it calls `markPainted(kind)` — the canvas heatmap from inside its
 * animation-frame draw (the browser paints right after), React charts from a layout effect plus
 * one animation frame. Only the first paint of each kind after an input counts. Samples are on
 * `window.__craneLatency` for the e2e run, and are performance measures ('crane:<kind>').
 */
export type LatencyKind = 'heatmap' | 'preview' | 'spectrum';

export interface LatencyRecorder {
  readonly samples: Record<LatencyKind, number[]>;
  p95(kind: LatencyKind): number | null;
  clear(): void;
}

const MAX_SAMPLES = 2000;
let lastInput: { seq: number; at: number } | null = null;
const recorded: Record<LatencyKind, number> = { heatmap: 0, preview: 0, spectrum: 0 };

const recorder: LatencyRecorder = {
  samples: { heatmap: [], preview: [], spectrum: [] },
  p95: (kind) => percentile(recorder.samples[kind], 0.95),
  clear() {
    for (const list of Object.values(recorder.samples)) list.length = 0;
  },
};

declare global {
  interface Window {
    __craneLatency?: LatencyRecorder;
  }
}

export function installLatencyRecorder(target: Window = window): LatencyRecorder {
  target.__craneLatency = recorder;
  return recorder;
}

export function markInput(): void {
  lastInput = { seq: (lastInput?.seq ?? 0) + 1, at: performance.now() };
}

/** The view has drawn the input's state and the browser paints next (canvas draw in rAF). */
export function markPaintedNow(kind: LatencyKind): void {
  const input = lastInput;
  if (input === null || recorded[kind] === input.seq) return;
  recorded[kind] = input.seq;
  record(kind, input.at, performance.now());
}

/** The view committed the input's state (React); the sample is taken at the next frame. */
export function markPainted(kind: LatencyKind): void {
  const input = lastInput;
  if (input === null || recorded[kind] === input.seq) return;
  recorded[kind] = input.seq;
  const frame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (cb: () => void) => setTimeout(cb, 0);
  frame(() => record(kind, input.at, performance.now()));
}

function record(kind: LatencyKind, start: number, end: number): void {
  const list = recorder.samples[kind];
  list.push(end - start);
  if (list.length > MAX_SAMPLES) list.shift();
  try {
    performance.measure?.(`crane:${kind}`, { start, end });
  } catch {
    // measure() with options is missing in some test DOMs; the sample is what matters.
  }
}

export function percentile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? null;
}

export const latencyRecorder = recorder;
