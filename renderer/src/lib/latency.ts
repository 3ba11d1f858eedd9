/**
 * Slider-to-paint latency. A control marks the input (`markInput`), a view that repaints because
 * of it calls `markPainted(kind)`; the sample is taken after the next animation frame, i.e. once
 * the browser has had the chance to paint the change. Samples are exposed on
 * `window.__craneLatency` for the e2e run, and as performance measures ('crane:<kind>').
 */
export type LatencyKind = 'heatmap' | 'preview' | 'spectrum';

export interface LatencyRecorder {
  readonly samples: Record<LatencyKind, number[]>;
  p95(kind: LatencyKind): number | null;
  clear(): void;
}

const MAX_SAMPLES = 2000;
let lastInput: number | null = null;
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
  lastInput = performance.now();
  performance.mark?.('crane:input');
}

/** Called by a view right after it drew state caused by the latest input. */
export function markPainted(kind: LatencyKind): void {
  const start = lastInput;
  if (start === null) return;
  const frame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (cb: () => void) => setTimeout(cb, 0);
  frame(() => {
    const end = performance.now();
    const list = recorder.samples[kind];
    list.push(end - start);
    if (list.length > MAX_SAMPLES) list.shift();
    try {
      performance.measure?.(`crane:${kind}`, { start, end });
    } catch {
      // measure() with options is missing in some test DOMs; the sample is what matters.
    }
  });
}

export function percentile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? null;
}

export const latencyRecorder = recorder;
