// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineApi } from '../../engine-link/engine-api.ts';
import { ProtocolError, type Params } from '../../protocol.ts';
import { analyzedEngine, renderWithStore } from '../../testing/render-with-store.tsx';
import { ReferenceRunFields } from './ReferenceRunFields.tsx';

afterEach(cleanup);

const NEEDS_GRADIENTS = 'the preview needs gradients — this analysis was imported from a reference run';

/** The synthetic engine's heatmap behind an engine that imports reference runs and, like the real one, refuses the preview on them. */
async function referenceEngine(calls: Params<'openReferenceRun'>[]): Promise<EngineApi> {
  const synthetic = await analyzedEngine(3);
  return {
    call: (method, params, options) => {
      if (method === 'openReferenceRun') {
        const p = params as Params<'openReferenceRun'>;
        calls.push(p);
        if (p.source === '/runs/empty') return Promise.reject(new ProtocolError('not-found', '/runs/empty/phase2_stats.json: a reference run\'s folder holds phase2_stats.json and format_projectors.pt'));
        return Promise.resolve({ projectDir: p.projectDir, files: [`${p.source}/phase2_stats.json`, `${p.source}/format_projectors.pt`], gateBlocks: 12, projectors: 6 }) as never;
      }
      if (method === 'preview') return Promise.reject(new ProtocolError('invalid-params', NEEDS_GRADIENTS));
      return synthetic.call(method, params, options);
    },
    on: () => () => undefined,
    onClose: () => () => undefined,
  };
}

function openWith(source: string) {
  fireEvent.click(screen.getByText('Open reference run', { selector: 'summary' }));
  fireEvent.change(screen.getByLabelText('Run folder or phase2_stats.json'), { target: { value: source } });
  fireEvent.click(screen.getByRole('button', { name: 'Open reference run' }));
}

describe('<ReferenceRunFields>', () => {
  it('imports a run folder into the open project, shows the heatmap, and the preview says why it is unavailable', async () => {
    const calls: Params<'openReferenceRun'>[] = [];
    const { store } = renderWithStore(<ReferenceRunFields />, await referenceEngine(calls));
    act(() => store.getState().setProjectDir('/projects/qwen3'));
    openWith('/runs/qwen3-30b');
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('12 gate blocks, 6 projectors'));
    expect(calls).toEqual([{ projectDir: '/projects/qwen3', source: '/runs/qwen3-30b', projectors: null, projectorsLinattn: null }]);
    expect(store.getState().gates.metrics.status).toBe('ready');
    await waitFor(() => expect(store.getState().preview.error?.message).toBe(NEEDS_GRADIENTS));
  });

  it('shows the engine\'s reason when the folder holds no run, and is disabled without a project', async () => {
    const calls: Params<'openReferenceRun'>[] = [];
    const { store } = renderWithStore(<ReferenceRunFields />, await referenceEngine(calls));
    openWith('/runs/empty');
    expect((screen.getByRole('button', { name: 'Open reference run' }) as HTMLButtonElement).disabled).toBe(true);
    act(() => store.getState().setProjectDir('/projects/qwen3'));
    fireEvent.click(screen.getByRole('button', { name: 'Open reference run' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('holds phase2_stats.json and format_projectors.pt'));
    expect(calls).toHaveLength(1);
  });
});
