// @vitest-environment happy-dom
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithStore } from '../../testing/render-with-store.tsx';
import { describeOverrides, ExportPlan } from './ExportPlan.tsx';

afterEach(cleanup);

describe('<ExportPlan>', () => {
  it('states the method with its exact settings, the overrides and the shard budget before anything is written', () => {
    const { store } = renderWithStore(<ExportPlan />);
    act(() => {
      store.getState().updateSettings({ alpha: 0.4, overrides: [{ block: { layer: 2, group: 'ffn' }, gate: null, locked: true }] });
      store.getState().setExportForm({ outDir: '/tmp/out', shardGiB: 2, overwrite: true });
    });
    const plan = screen.getByTestId('export-plan');
    expect(plan.textContent).toContain('CRANE · α 0.4 · q 0.5 · τ 0.03 · k 153 · coarse · 1 override');
    expect(screen.getByTestId('export-plan-overrides').textContent).toBe('1: layer 2 · ffn locked');
    expect(plan.textContent).toContain('/tmp/out (replaces a previous export there)');
    // No pair open: nothing to estimate from, and it says so.
    expect(screen.getByTestId('export-plan-size').textContent).toBe('open the pair to estimate it');

    act(() => {
      store.getState().setExportForm({ method: 'ties' });
      store.getState().setMethodParameter('ties', 'density', 0.7);
    });
    expect(plan.textContent).toContain('TIES · λ 0.3 · density 0.7');
    expect(screen.queryByTestId('export-plan-overrides')).toBeNull();
  });

  it('lists at most six overrides, set gates with their S', () => {
    const cells = Array.from({ length: 8 }, (_, layer) => ({ block: { layer, group: 'attention' }, gate: 0.5, locked: false }));
    expect(describeOverrides(cells)).toBe(`8: ${cells.slice(0, 6).map((c) => `layer ${c.block.layer} · attention S = 0.5`).join(', ')}, …`);
    expect(describeOverrides([])).toBe('none (every block at its computed gate)');
  });
});
