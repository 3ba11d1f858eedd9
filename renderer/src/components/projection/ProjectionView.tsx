/**
 * GSP for the selected layer: its format spectrum, the sigmoid mask, directions removed and
 * kept, and the update's norm GSP keeps. That share is the heatmap's "Retained" metric, with the
 * same formula and label (‖Π(U)‖/‖U‖, a norm ratio), over the tensors this activation key feeds;
 * the selected block's heatmap cell (all its tensors) stands beside it, named as such.
 */
import { useMemo } from 'react';
import { formatNumber } from '../../lib/format.ts';
import { removedDirections } from '../../lib/sigmoid-mask.ts';
import type { ActivationKey } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { selectedBlockRetained } from './block-retained.ts';
import { Stat } from '../common/Stat.tsx';
import { useElementWidth } from '../common/use-element-width.ts';
import { passSpectrumSeries } from './pass-spectra.ts';
import { directionsAboveTau, spectrumRows } from './spectrum-data.ts';
import { SpectrumChart } from './SpectrumChart.tsx';

/** The tensors each activation key's projector acts on. */
const FED_TENSORS: Record<ActivationKey, string> = { attn_input: 'q/k/v', ffn_input: 'gate/up' };

export function ProjectionView() {
  const block = useApp((s) => s.selection.block);
  const key = useApp((s) => s.selection.activationKey);
  const setKey = useApp((s) => s.setActivationKey);
  const spectrum = useApp((s) => s.spectrum);
  const tau = useApp((s) => s.settings.current.tau);
  const steepness = useApp((s) => s.settings.current.steepness);
  const gsp = useApp((s) => s.settings.current.stages.gsp);
  const [ref, width] = useElementWidth<HTMLDivElement>(440);
  const result = spectrum.result;
  const rows = useMemo(() => (result === null ? [] : spectrumRows(result.sigmaRatio, tau, steepness)), [result, tau, steepness]);
  const removed = result === null || !gsp ? 0 : removedDirections(result.sigmaRatio, tau, steepness);
  const rank = result?.sigmaRatio.length ?? 0;
  const blockRetained = useApp(selectedBlockRetained);
  const passMetrics = useApp((s) => s.passes.metrics.result);
  const passes = useMemo(() => (block === null ? [] : passSpectrumSeries(passMetrics, block.layer, key)), [passMetrics, block, key]);

  return (
    <section className="panel projection" aria-labelledby="projection-title" ref={ref}>
      <header className="panel-header">
        <h2 id="projection-title">Projection (GSP)</h2>
        <select aria-label="Activation key" value={key} onChange={(e) => setKey(e.currentTarget.value as ActivationKey)}>
          <option value="attn_input">attn_input (q/k/v)</option>
          <option value="ffn_input">ffn_input (gate/up)</option>
        </select>
      </header>
      {block === null ? (
        <p className="muted empty">Select a block in the heatmap to see its layer’s format spectrum and mask.</p>
      ) : (
        <>
          <p className="muted small">
            Layer {block.layer} · {key}
            {!gsp && ' · GSP is off: nothing is removed'}
          </p>
          <EngineNotice error={spectrum.error} what="Spectrum" />
          {result !== null && (
            <>
              <div className="stats" data-testid="projection-stats">
                <Stat label="directions removed (Σw)" value={formatNumber(removed, 3)} />
                <Stat label={`directions kept (of ${rank})`} value={formatNumber(rank - removed, 3)} />
                <Stat label="with σ/σ₁ ≥ τ" value={String(directionsAboveTau(result.sigmaRatio, tau))} />
                <Stat label={`retained ‖Π(U)‖/‖U‖, ${FED_TENSORS[result.key]}`} value={formatNumber(gsp ? Math.sqrt(result.retainedFraction) : 1, 3)} />
                {block !== null && blockRetained !== null && (
                  <Stat label={`retained, whole ${block.group} block (heatmap cell)`} value={formatNumber(blockRetained, 3)} testId="block-retained" />
                )}
              </div>
              <SpectrumChart rows={rows} tau={tau} width={Math.max(240, width - 24)} height={230} passes={passes} />
            </>
          )}
        </>
      )}
    </section>
  );
}
