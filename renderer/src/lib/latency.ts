/**
 * Slider-to-paint latency: from the slider's input event to the frame that shows its effect.
 *
 * A control marks the input (`markInput`). A view whose DOM or canvas now shows the input's
 * state says so, and the sample is taken once the browser has painted that frame (a task posted
 * from the frame's animation-frame callback runs after its style, layout and paint):
 *   - `markPaintedNow(kind)`  from inside an animation-frame draw (the canvas heatmap)
 *   - `markPainted(kind)`     after a DOM change (waits for the next frame, then its paint)
 *   - `observePaints(kind, root)`  a MutationObserver on a chart: any change inside one of its
 *     `[data-paint-probe]` elements (the series and markers that show the value) counts. This
 *     watches the DOM itself, so a chart library that draws its new data in a later render
 *     pass is measured when it does, not when its props changed.
 * Only the first paint of each kind after an input counts. Samples are on
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

/** The view has drawn the input's state inside an animation frame; the browser paints next. */
export function markPaintedNow(kind: LatencyKind): void {
  const input = claim(kind);
  if (input !== null) afterThisFrame(() => record(kind, input.at, performance.now()));
}

/** The view's DOM shows the input's state; the sample is taken after the next frame's paint. */
export function markPainted(kind: LatencyKind): void {
  const input = claim(kind);
  if (input === null) return;
  if (typeof requestAnimationFrame !== 'function') setTimeout(() => record(kind, input.at, performance.now()), 0);
  else requestAnimationFrame(() => afterThisFrame(() => record(kind, input.at, performance.now())));
}

export const PAINT_PROBE_ATTRIBUTE = 'data-paint-probe';

/**
 * Marks `kind` painted whenever the DOM inside `root` changes within an element carrying
 * `data-paint-probe` (or such an element is added). Returns the disconnect function.
 */
export function observePaints(kind: LatencyKind, root: Element): () => void {
  if (typeof MutationObserver !== 'function') return () => undefined;
  const selector = `[${PAINT_PROBE_ATTRIBUTE}]`;
  const touchesProbe = (m: MutationRecord): boolean => {
    const target = m.target instanceof Element ? m.target : m.target.parentElement;
    if (target?.closest(selector)) return true;
    return Array.from(m.addedNodes).some((n) => n instanceof Element && (n.matches(selector) || n.querySelector(selector) !== null));
  };
  const observer = new MutationObserver((mutations) => {
    if (mutations.some(touchesProbe)) markPainted(kind);
  });
  observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
  return () => observer.disconnect();
}

/** The latest input, if `kind` has not painted since it; from then on it has. */
function claim(kind: LatencyKind): { seq: number; at: number } | null {
  const input = lastInput;
  if (input === null || recorded[kind] === input.seq) return null;
  recorded[kind] = input.seq;
  return input;
}

/** Runs `callback` in a task after the current frame's rendering (when called from rAF: after its paint). */
function afterThisFrame(callback: () => void): void {
  if (typeof MessageChannel !== 'function') {
    setTimeout(callback, 0);
    return;
  }
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    callback();
  };
  channel.port2.postMessage(null);
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
