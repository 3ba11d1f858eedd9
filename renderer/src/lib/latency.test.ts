// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { latencyRecorder, markInput, observePaints, PAINT_PROBE_ATTRIBUTE, percentile } from './latency.ts';

const settle = () => new Promise((resolve) => setTimeout(resolve, 60));

describe('slider-to-paint latency', () => {
  it('counts a change inside a paint probe, once per input, and ignores the rest of the chart', async () => {
    latencyRecorder.clear();
    const root = document.createElement('div');
    root.innerHTML = `<svg><g class="axis"><text>0</text></g><g ${PAINT_PROBE_ATTRIBUTE}><path d="M0,0"/></g></svg>`;
    document.body.append(root);
    const disconnect = observePaints('preview', root);
    const path = root.querySelector('path') as SVGPathElement;

    markInput();
    (root.querySelector('text') as SVGTextElement).textContent = '1'; // an axis label: not the value
    await settle();
    expect(latencyRecorder.samples.preview).toHaveLength(0);

    path.setAttribute('d', 'M0,1');
    path.setAttribute('d', 'M0,2'); // the same input's second change: still one sample
    await settle();
    expect(latencyRecorder.samples.preview).toHaveLength(1);
    expect(latencyRecorder.samples.preview[0]).toBeGreaterThanOrEqual(0);

    markInput();
    root.querySelector(`[${PAINT_PROBE_ATTRIBUTE}]`)?.append(document.createElementNS('http://www.w3.org/2000/svg', 'circle'));
    await settle();
    expect(latencyRecorder.samples.preview).toHaveLength(2);

    disconnect();
    markInput();
    path.setAttribute('d', 'M0,3');
    await settle();
    expect(latencyRecorder.samples.preview).toHaveLength(2);
    root.remove();
  });

  it('p95 is the sample at the 95th percentile', () => {
    expect(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 0.95)).toBe(95);
    expect(percentile([], 0.95)).toBeNull();
  });
});
