import type { Grouping } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';

export function GroupingSwitch() {
  const grouping = useApp((s) => s.settings.current.grouping);
  const update = useApp((s) => s.updateSettings);
  const options: { value: Grouping; label: string }[] = [
    { value: 'coarse', label: 'Coarse groups' },
    { value: 'fine', label: 'Per projection' },
  ];
  return (
    <fieldset className="group">
      <legend>Blocks</legend>
      <div className="segmented" role="radiogroup" aria-label="Block grouping">
        {options.map((o) => (
          <label key={o.value} className={o.value === grouping ? 'segment active' : 'segment'}>
            <input type="radio" name="grouping" value={o.value} checked={o.value === grouping} onChange={() => update({ grouping: o.value })} />
            {o.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
