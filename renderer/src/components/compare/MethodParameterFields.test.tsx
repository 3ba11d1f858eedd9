// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { METHOD_LABELS, METHOD_NAMES } from '../../lib/merge-methods.ts';
import { parametersOf, type MethodParameter, type Params } from '../../protocol.ts';
import { methodOf } from '../../store/methods-slice.ts';
import { analyzedEngine, renderWithStore } from '../../testing/render-with-store.tsx';
import { MethodComparison } from './MethodComparison.tsx';

afterEach(cleanup);

const field = (method: (typeof METHOD_NAMES)[number], p: MethodParameter) => screen.getByLabelText(`${METHOD_LABELS[method]} ${p.label}`);

/** A value inside the parameter's range that differs from its default. */
function otherValue(p: MethodParameter): number | string {
  if (p.kind === 'choice') return p.options.find((o) => o !== p.default) ?? p.default;
  if (p.kind === 'path') return `/data/${p.key}.json`;
  const candidate = p.integer ? p.default + 1 : p.max === null ? p.default * 1.5 : (p.min + p.max) / 2;
  return candidate === p.default ? (p.min + p.default) / 2 : candidate;
}

describe('the Methods view parameters', () => {
  it('renders every parameter of every method in the table, each editable into what Verify runs', () => {
    const { store } = renderWithStore(<MethodComparison />);
    for (const method of METHOD_NAMES) {
      for (const p of parametersOf(method)) {
        const input = field(method, p);
        expect(String((input as HTMLInputElement).value), `${method}.${p.key}`).toBe(String(p.default));
        const next = otherValue(p);
        fireEvent.change(input, { target: { value: String(next) } });
        const applied = methodOf(store.getState(), method);
        const settings: Readonly<Record<string, unknown>> = applied.method === 'crane' ? applied.settings : applied;
        expect(settings[p.key], `${method}.${p.key}`).toBe(next);
        expect(input.getAttribute('aria-invalid') ?? 'false', `${method}.${p.key}`).toBe('false');
      }
    }
  });

  it('keeps a refused value in the input with the reason, and applies none of it', () => {
    const { store } = renderWithStore(<MethodComparison />);
    const density = parametersOf('ties').find((p) => p.key === 'density');
    if (density === undefined) throw new Error('TIES has a density parameter');
    const input = field('ties', density) as HTMLInputElement;
    fireEvent.change(input, { target: { value: '1.5' } });
    expect(input.value).toBe('1.5');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('alert').textContent).toMatch(/^density: /);
    expect(methodOf(store.getState(), 'ties')).toMatchObject({ density: 0.5 });
    fireEvent.change(input, { target: { value: '0.25' } });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(methodOf(store.getState(), 'ties')).toMatchObject({ density: 0.25 });
  });

  it("edits CRANE's α in the shared edit settings", () => {
    const { store } = renderWithStore(<MethodComparison />);
    fireEvent.change(screen.getByLabelText('CRANE α (strength)'), { target: { value: '0.5' } });
    expect(store.getState().settings.current.alpha).toBe(0.5);
  });

  it('Verify sends the method with the parameters as edited', async () => {
    const engine = await analyzedEngine(2);
    const sent: Params<'verify'>[] = [];
    const call = engine.call.bind(engine);
    engine.call = (name, params, options) => {
      if (name === 'verify') sent.push(params as Params<'verify'>);
      return call(name, params, options);
    };
    const { actions } = renderWithStore(<MethodComparison />, engine);
    fireEvent.change(screen.getByLabelText('SLERP t (fraction)'), { target: { value: '0.7' } });
    await act(() => actions.verify('slerp'));
    expect(sent).toEqual([{ method: { method: 'slerp', t: 0.7 } }]);
  });
});
