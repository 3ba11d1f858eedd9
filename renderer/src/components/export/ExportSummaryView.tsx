import { formatSeconds } from '../../lib/format.ts';
import { formatBytes, type ExportSummary } from '../../protocol.ts';

export function ExportSummaryView({ summary }: { summary: ExportSummary }) {
  return (
    <div className="export-summary" data-testid="export-summary">
      <p className="verdict ok">
        ✓ Wrote {summary.files.length} files ({formatBytes(summary.totalBytes)}) in {formatSeconds(summary.seconds)} to <span className="mono">{summary.outDir}</span>
      </p>
      <details>
        <summary>Files</summary>
        <ul className="mono small">
          {summary.files.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      </details>
      <details open>
        <summary>Recipe</summary>
        <pre className="recipe">{JSON.stringify(summary.recipe, null, 2)}</pre>
      </details>
    </div>
  );
}
