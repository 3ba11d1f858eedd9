// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineApi } from '../../engine-link/engine-api.ts';
import { SyntheticEngine } from '../../engine-link/synthetic/synthetic-engine.ts';
import type { BuiltinProject } from '../../protocol.ts';
import { loadBuiltinPairs } from '../../store/builtin-pairs.ts';
import { renderWithStore } from '../../testing/render-with-store.tsx';
import { ProjectPanel } from './ProjectPanel.tsx';

afterEach(cleanup);

const BUILTINS: BuiltinProject[] = [
  { name: 'demo', label: 'Demo pair: Qwen3, 4 layers, dense', projectDir: '/data/projects/demo' },
  { name: 'demo-moe', label: 'Demo MoE pair: Qwen3-MoE, 4 layers × 8 experts, top-2', projectDir: '/data/projects/demo-moe' },
];

/** The synthetic engine, with the built-in pairs a real engine would list. */
function engineWithBuiltins(): EngineApi {
  const engine = new SyntheticEngine({ layers: 2, experts: 0 }, 0);
  return {
    call: (method, params, options) => (method === 'listBuiltinPairs' ? Promise.resolve(BUILTINS as never) : engine.call(method, params, options)),
    on: (event, handler) => engine.on(event, handler),
    onClose: () => engine.onClose(),
  };
}

describe('<ProjectPanel> built-in pairs', () => {
  it('lists the engine\'s built-in pairs and opens the chosen one as the project', async () => {
    const { store, actions } = renderWithStore(<ProjectPanel />, engineWithBuiltins());
    await act(() => loadBuiltinPairs(store, actions));
    expect(screen.getByRole('heading', { name: 'Built-in pairs' })).toBeTruthy();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: BUILTINS[1]?.label }));
      await new Promise((r) => setTimeout(r, 5));
    });
    expect(store.getState().project.state.result?.projectDir).toBe('/data/projects/demo-moe');
    expect(screen.getByText('Open: /data/projects/demo-moe')).toBeTruthy();
  });

  it('offers none when the engine has none to offer (the synthetic engine)', async () => {
    const { store, actions } = renderWithStore(<ProjectPanel />, new SyntheticEngine({ layers: 2, experts: 0 }, 0));
    await act(() => loadBuiltinPairs(store, actions));
    expect(store.getState().project.builtins).toEqual([]);
    expect(screen.queryByRole('heading', { name: 'Built-in pairs' })).toBeNull();
  });
});
