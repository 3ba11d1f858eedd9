import type { Granularity } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';
import { SegmentedRadio, type SegmentOption } from '../common/SegmentedRadio.tsx';

/** An MoE analysis' fine blocks are one per routed expert (its gate/up/down pooled), the rest per projection: the hover text says so. */
const optionsFor = (experts: boolean): readonly SegmentOption<Granularity>[] => [
  { value: 'coarse', label: 'Coarse groups', title: 'One S per layer and group (the reference’s rule)' },
  { value: 'fine', label: 'Per projection', title: experts ? 'One S per projection, and one per routed expert' : 'One S per projection' },
];

export function GranularitySwitch() {
  const granularity = useApp((s) => s.settings.current.granularity);
  const update = useApp((s) => s.updateSettings);
  const experts = useApp((s) => s.experts.metrics.result !== null);
  return (
    <fieldset className="group">
      <legend>Blocks</legend>
      <SegmentedRadio label="Block grouping" name="granularity" options={optionsFor(experts)} value={granularity} onChange={(value) => update({ granularity: value })} />
    </fieldset>
  );
}
