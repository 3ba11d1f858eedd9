/**
 * What the export is about to write, shown before it runs: the method and its exact settings
 * (with the hash the other views print), CRANE's overrides and locks, the lm_head rows kept at
 * θ_I, and the estimated size and shard count in the chosen dtype (export-estimate.ts, from
 * Instruct's tensor list; without it, Instruct's size as stored).
 */
import { useEffect, useMemo, useState } from 'react';
import { formatNumber } from '../../lib/format.ts';
import { METHOD_LABELS } from '../../lib/merge-methods.ts';
import { settingsKey, shortHash } from '../../lib/settings-key.ts';
import { applyProtectedEdits, formatBytes, formatIdRanges, type BlockOverride } from '../../protocol.ts';
import { useActions, useApp } from '../../store/app-context.tsx';
import { shardBytesOf } from '../../store/export-slice.ts';
import { methodOf } from '../../store/methods-slice.ts';
import { describeSettings } from '../preview/run-history.ts';
import { estimateExport, type TensorSize } from './export-estimate.ts';

export function ExportPlan() {
  const form = useApp((s) => s.exporting.form);
  const settings = useApp((s) => s.settings);
  const methodParameters = useApp((s) => s.methodParameters);
  const method = useMemo(() => methodOf({ settings, methodParameters }, form.method), [settings, methodParameters, form.method]);
  const tokens = useApp((s) => s.pair.summary.result?.report.tokens);
  const instruct = useApp((s) => s.pair.summary.result?.instruct ?? null);
  const tensors = useInstructTensors(instruct?.dir ?? null);
  const shardBytes = shardBytesOf(form);
  const estimate = tensors === null ? null : estimateExport(tensors, form.dtype, shardBytes);
  const crane = method.method === 'crane' ? method.settings : null;
  const protectedIds = crane === null ? null : applyProtectedEdits(tokens?.special ?? [], crane.special.protectedTokens);
  return (
    <dl className="export-plan small" data-testid="export-plan" aria-label="What the export will write">
      <dt>Method</dt>
      <dd>
        {METHOD_LABELS[method.method]} · {describeSettings(method)} <span className="muted">#{shortHash(settingsKey(method))}</span>
      </dd>
      {crane !== null && (
        <>
          <dt>Overrides</dt>
          <dd data-testid="export-plan-overrides">{describeOverrides(crane.overrides)}</dd>
          <dt>Protected rows</dt>
          <dd>
            {tokens === undefined || protectedIds === null
              ? 'the tokenizer’s added tokens (open the pair to list them)'
              : `lm_head rows kept at θ_I: ${protectedIds.length > 0 ? formatIdRanges(protectedIds) : 'none'} · think rows ${formatIdRanges(tokens.think) || 'none'} moved ${formatNumber(crane.special.thinkRows)} of the way`}
          </dd>
        </>
      )}
      <dt>Size</dt>
      <dd data-testid="export-plan-size">
        {estimate !== null
          ? `≈ ${formatBytes(estimate.bytes)} in ${estimate.shards} shard${estimate.shards === 1 ? '' : 's'} of at most ${formatBytes(shardBytes)} (${form.dtype === 'source' ? 'source dtypes' : form.dtype})`
          : instruct !== null
            ? `≈ ${formatBytes(instruct.totalBytes)} (Instruct as stored), shards of at most ${formatBytes(shardBytes)}`
            : 'open the pair to estimate it'}
      </dd>
      <dt>Folder</dt>
      <dd className="mono">
        {form.outDir || '—'}
        {form.overwrite && <span className="muted"> (replaces a previous export there)</span>}
      </dd>
    </dl>
  );
}

/** "none", or "3: layer 2 · ffn locked, layer 0 · attention S = 0.5, …". */
export function describeOverrides(overrides: readonly BlockOverride[]): string {
  if (overrides.length === 0) return 'none (every block at its computed gate)';
  const shown = overrides.slice(0, 6).map((o) => `layer ${o.block.layer} · ${o.block.group} ${o.locked ? 'locked' : `S = ${formatNumber(o.gate ?? NaN)}`}`);
  return `${overrides.length}: ${shown.join(', ')}${overrides.length > shown.length ? ', …' : ''}`;
}

/** Instruct's tensors (dtype, shape, bytes), once per folder; null until they arrive or when the engine cannot list them. */
function useInstructTensors(dir: string | null): readonly TensorSize[] | null {
  const actions = useActions();
  const [listed, setListed] = useState<{ dir: string; tensors: readonly TensorSize[] } | null>(null);
  useEffect(() => {
    if (dir === null || listed?.dir === dir) return;
    let live = true;
    actions.run('inspectCheckpoint', { dir }).then(
      (detail) => live && setListed({ dir, tensors: detail.tensors }),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [actions, dir, listed]);
  return listed?.dir === dir ? listed.tensors : null;
}
