import { METHOD_LABELS } from '../../lib/merge-methods.ts';
import { useApp } from '../../store/app-context.tsx';
import type { PaneIndex } from '../../store/side-by-side-slice.ts';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { PanePicker } from './PanePicker.tsx';
import { PassContributions } from './PassContributions.tsx';
import { TensorCompare } from './TensorCompare.tsx';

export function LayerPane({ index }: { index: PaneIndex }) {
  const pane = useApp((s) => s.sideBySide.panes[index]);
  const view = useApp((s) => s.sideBySide.views[index]);
  return (
    <section className="panel layer-pane" aria-label={`Pane ${index === 0 ? 'A' : 'B'}`} data-testid={`pane-${index}`}>
      <header className="panel-header">
        <h2>
          {index === 0 ? 'A' : 'B'} · layer {pane.block.layer} · {pane.block.group} · {METHOD_LABELS[pane.method]}
        </h2>
        {view.status === 'loading' && <span className="muted small">loading…</span>}
      </header>
      <PanePicker index={index} />
      <EngineNotice error={view.error} what="Layer inspection" />
      <PassContributions index={index} />
      {view.result?.tensors.map((t) => <TensorCompare key={t.name} tensor={t} method={pane.method} />)}
      {view.result !== null && view.result.tensors.length === 0 && <p className="muted">This block has no tensors.</p>}
    </section>
  );
}
