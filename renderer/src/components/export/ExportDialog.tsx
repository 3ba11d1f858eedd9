/** Export: folder, dtype, shard size, method → progress → summary with the recipe. */
import { useEffect, useRef } from 'react';
import { useActions, useApp } from '../../store/app-context.tsx';
import { EngineNotice } from '../common/EngineNotice.tsx';
import { ProgressBar } from '../common/ProgressBar.tsx';
import { formatSeconds } from '../../lib/format.ts';
import { ExportForm } from './ExportForm.tsx';
import { ExportSummaryView } from './ExportSummaryView.tsx';

export function ExportDialog() {
  const actions = useActions();
  const exporting = useApp((s) => s.exporting);
  const setOpen = useApp((s) => s.setExportOpen);
  const ref = useRef<HTMLDialogElement | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    if (exporting.open && !dialog.open) dialog.showModal?.();
    if (!exporting.open && dialog.open) dialog.close?.();
  }, [exporting.open]);
  const running = exporting.status === 'running';
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="export-title" onClose={() => setOpen(false)} onCancel={(e) => running && e.preventDefault()}>
      <h2 id="export-title">Export edited checkpoint</h2>
      <ExportForm disabled={running} onSubmit={() => void actions.exportCheckpoint()} />
      {running && (
        <div className="export-progress">
          <ProgressBar fraction={exporting.fraction} label="Export progress" />
          <p className="small muted">
            {Math.round(exporting.fraction * 100)}% · ETA {formatSeconds(exporting.etaSeconds)}
          </p>
        </div>
      )}
      <EngineNotice error={exporting.error} what="Export" />
      {exporting.summary !== null && <ExportSummaryView summary={exporting.summary} />}
      <div className="button-row end">
        {running ? (
          <button type="button" onClick={() => actions.cancelExport()}>
            Cancel export
          </button>
        ) : (
          <button type="button" onClick={() => setOpen(false)}>
            Close
          </button>
        )}
      </div>
    </dialog>
  );
}
