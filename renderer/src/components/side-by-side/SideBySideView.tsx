/** Two panes: two blocks under one method, or one block under two methods. */
import type { CompareMode, PaneIndex } from '../../store/side-by-side-slice.ts';
import { useApp } from '../../store/app-context.tsx';
import { LayerPane } from './LayerPane.tsx';

export function SideBySideView() {
  const mode = useApp((s) => s.sideBySide.mode);
  const setMode = useApp((s) => s.setCompareMode);
  const modes: { value: CompareMode; label: string }[] = [
    { value: 'blocks', label: 'Two blocks' },
    { value: 'methods', label: 'One block, two methods' },
  ];
  return (
    <div className="side-by-side">
      <div className="segmented" role="radiogroup" aria-label="Comparison mode">
        {modes.map((m) => (
          <label key={m.value} className={m.value === mode ? 'segment active' : 'segment'}>
            <input type="radio" name="compare-mode" value={m.value} checked={m.value === mode} onChange={() => setMode(m.value)} />
            {m.label}
          </label>
        ))}
      </div>
      <div className="two-col">
        {([0, 1] as PaneIndex[]).map((i) => (
          <LayerPane key={i} index={i} />
        ))}
      </div>
    </div>
  );
}
