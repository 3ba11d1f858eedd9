/** The pair report: both checkpoints side by side, the verdict, the protected token rows, findings and mismatches. */
import { formatBytes, formatIdRanges, type PairSummary } from '../../protocol.ts';
import { MismatchList } from './MismatchList.tsx';

export function CompatibilityReport({ summary }: { summary: PairSummary }) {
  const { instruct, thinking, report } = summary;
  const rows: [string, (c: typeof instruct) => string][] = [
    ['Folder', (c) => c.dir],
    ['Model type', (c) => c.modelType ?? '—'],
    ['Architecture', (c) => c.architectures.join(', ') || '—'],
    ['Layers', (c) => (c.layers === null ? '—' : String(c.layers))],
    ['Tensors', (c) => String(c.tensorCount)],
    ['Size', (c) => formatBytes(c.totalBytes)],
    ['Shards', (c) => String(c.shards.length)],
  ];
  return (
    <div className="report" data-testid="compatibility-report">
      <p className={report.compatible ? 'verdict ok' : 'verdict bad'}>
        {report.compatible ? '✓ Compatible' : '✗ Not compatible'} · {report.sharedTensors} shared tensors
      </p>
      <table className="table">
        <thead>
          <tr>
            <th scope="col" />
            <th scope="col">Instruct</th>
            <th scope="col">Thinking</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([label, get]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              <td className="mono">{get(instruct)}</td>
              <td className="mono">{get(thinking)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint" data-testid="protected-rows-report">
        lm_head rows kept at θ_I (Instruct&apos;s added tokens but the think pair): {formatIdRanges(report.tokens.special) || 'none'} · think rows{' '}
        {formatIdRanges(report.tokens.think) || 'none'}
      </p>
      {report.findings.length > 0 && (
        <ul className="findings">
          {report.findings.map((f, i) => (
            <li key={`${f.code}-${i}`} className={`finding ${f.severity}`}>
              <span className="badge">{f.severity}</span> {f.message}
            </li>
          ))}
        </ul>
      )}
      <MismatchList title="Only in Instruct" names={report.onlyInInstruct} />
      <MismatchList title="Only in Thinking" names={report.onlyInThinking} />
      <MismatchList title="Shape mismatches" names={report.shapeMismatches.map((m) => `${m.name}: ${m.instruct} vs ${m.thinking}`)} />
      <MismatchList title="Dtype mismatches" names={report.dtypeMismatches.map((m) => `${m.name}: ${m.instruct} vs ${m.thinking}`)} />
    </div>
  );
}
