/**
 * Where Verify measures, stated beside its results: the set of the latest result of the given
 * methods, else the set the analysis settings name (what the next Verify will use).
 */
import { describeEvaluation, type MergeMethodName } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';

export function MeasuredOn({ methods }: { methods: readonly MergeMethodName[] }) {
  const planned = useApp((s) => s.analysis.settings.evaluation);
  const measured = useApp((s) => s.verify.measured.findLast((r) => methods.includes(r.method.method))?.measuredOn);
  return (
    <p className="small muted" data-testid="measured-on">
      {measured === undefined ? 'Verify measures on' : 'measured on'}: {describeEvaluation(measured ?? planned)}
    </p>
  );
}
