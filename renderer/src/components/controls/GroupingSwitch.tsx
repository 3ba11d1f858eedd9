import type { Grouping } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';
import { SegmentedRadio, type SegmentOption } from '../common/SegmentedRadio.tsx';

const OPTIONS: readonly SegmentOption<Grouping>[] = [
  { value: 'coarse', label: 'Coarse groups' },
  { value: 'fine', label: 'Per projection' },
];

export function GroupingSwitch() {
  const grouping = useApp((s) => s.settings.current.grouping);
  const update = useApp((s) => s.updateSettings);
  return (
    <fieldset className="group">
      <legend>Blocks</legend>
      <SegmentedRadio label="Block grouping" name="grouping" options={OPTIONS} value={grouping} onChange={(value) => update({ grouping: value })} />
    </fieldset>
  );
}
