import type { Granularity } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';
import { SegmentedRadio, type SegmentOption } from '../common/SegmentedRadio.tsx';

const OPTIONS: readonly SegmentOption<Granularity>[] = [
  { value: 'coarse', label: 'Coarse groups' },
  { value: 'fine', label: 'Per projection' },
];

export function GranularitySwitch() {
  const granularity = useApp((s) => s.settings.current.granularity);
  const update = useApp((s) => s.updateSettings);
  return (
    <fieldset className="group">
      <legend>Blocks</legend>
      <SegmentedRadio label="Block grouping" name="granularity" options={OPTIONS} value={granularity} onChange={(value) => update({ granularity: value })} />
    </fieldset>
  );
}
