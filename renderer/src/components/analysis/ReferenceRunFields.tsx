/**
 * Open reference run: the artifacts of a CRANE reference-pipeline run (phase2_stats.json,
 * format_projectors.pt and the optional linear-attention file) become the project's analysis,
 * so the heatmap, masks and tuning work on S and projectors computed on a cluster. Paths are
 * typed like every other path field (Browse picks the run's folder in the desktop app).
 */
import { useState } from 'react';
import { useActions, useApp } from '../../store/app-context.tsx';
import { checkPath } from '../../lib/path-check.ts';
import { toErrorInfo } from '../../store/slice.ts';
import { PathField } from '../pair/PathField.tsx';

type Status = { readonly state: 'idle' | 'opening' } | { readonly state: 'done' | 'error'; readonly message: string };

const optional = (path: string): string | null => (path.trim() === '' ? null : path.trim());

export function ReferenceRunFields() {
  const actions = useActions();
  const projectDir = useApp((s) => s.project.dir);
  const [source, setSource] = useState('');
  const [projectors, setProjectors] = useState('');
  const [linattn, setLinattn] = useState('');
  const [status, setStatus] = useState<Status>({ state: 'idle' });
  const canOpen = checkPath(projectDir).ok && checkPath(source.trim()).ok && status.state !== 'opening';

  const open = async () => {
    setStatus({ state: 'opening' });
    try {
      const summary = await actions.openReferenceRun({ source: source.trim(), projectors: optional(projectors), projectorsLinattn: optional(linattn) });
      setStatus({ state: 'done', message: `Opened ${summary.files.join(', ')}: ${summary.gateBlocks} gate blocks, ${summary.projectors} projectors.` });
    } catch (error) {
      setStatus({ state: 'error', message: toErrorInfo(error).message });
    }
  };

  return (
    <details className="group">
      <summary>Open reference run</summary>
      <p className="small muted">
        S and projectors from the CRANE reference pipeline (crane_s_reason_auto.py, crane_gsp.py): the run&apos;s folder, or its
        phase2_stats.json with format_projectors.pt named below. They replace this project&apos;s analysis. A reference run carries
        no gradients, so the instant preview and Verify wait until Analyze runs here; the heatmap, masks, tuning and export work at once.
      </p>
      <PathField label="Run folder or phase2_stats.json" purpose="calibration" placeholder="/absolute/path/to/run" value={source} onChange={setSource} />
      <PathField label="format_projectors.pt (when a stats file is named)" purpose="calibration" placeholder="optional" value={projectors} onChange={setProjectors} />
      <PathField label="format_projectors_linattn_inner.pt (Qwen3-Next, optional)" purpose="calibration" placeholder="optional" value={linattn} onChange={setLinattn} />
      <div className="button-row">
        <button type="button" disabled={!canOpen} onClick={() => void open()}>
          {status.state === 'opening' ? 'Opening…' : 'Open reference run'}
        </button>
      </div>
      {(status.state === 'done' || status.state === 'error') && (
        <p role="status" className={status.state === 'error' ? 'field-error' : 'small'}>
          {status.message}
        </p>
      )}
    </details>
  );
}
