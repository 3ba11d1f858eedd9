/**
 * Slider-to-paint measurement for a chart: attach the returned ref to the element around it and
 * mark the elements that show the value with `data-paint-probe` (see latency.ts).
 */
import { useEffect, useRef } from 'react';
import { observePaints, type LatencyKind } from './latency.ts';

export function usePaintProbe<T extends Element>(kind: LatencyKind) {
  const ref = useRef<T | null>(null);
  useEffect(() => (ref.current === null ? undefined : observePaints(kind, ref.current)), [kind]);
  return ref;
}
