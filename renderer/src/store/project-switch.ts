/**
 * Opening another project: nothing computed for the previous one may stay on screen (its
 * heatmap, preview curve, measured points, spectrum, side-by-side panes, Verify jobs). The new
 * project's results are fetched afresh by whoever opens it.
 */
import type { AppState } from './app-store.ts';
import { idle } from './slice.ts';

export function clearProjectResults(s: AppState): void {
  s.setGateMetrics(idle());
  s.setExpertMetrics(idle());
  s.setPassMetrics(idle());
  s.setPreview(idle());
  s.setSpectrum(idle());
  s.select(null);
  s.setPaneView(0, idle());
  s.setPaneView(1, idle());
  s.setPanePasses(0, idle());
  s.setPanePasses(1, idle());
  s.clearVerifyJobs();
  s.setMeasured([]);
}
