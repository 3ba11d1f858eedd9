/** The pair report: both checkpoints side by side, the verdict, the protected token rows, findings and mismatches. */
import { formatBytes, formatIdRanges, type PairSummary } from '../../protocol.ts';
import { MismatchList } from './MismatchList.tsx';

type Report = PairSummary['report'];
const count = (report: Report, severity: Report['findings'][number]['severity']) => report.findings.filter((f) => f.severity === severity).length;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line per verdict: whether an edit can run, and what it will do about the findings below. */
const VERDICTS: Record<Report['verdict'], { tone: 'ok' | 'warn' | 'bad'; text: (errors: number, warnings: number) => string }> = {
  refused: { tone: 'bad', text: (errors) => `✗ Cannot merge: ${plural(errors, 'blocking problem')} (below)` },
  caveats: { tone: 'warn', text: (_, warnings) => `⚠ Can merge, with ${plural(warnings, 'caveat')} (below)` },
  identical: { tone: 'warn', text: () => '= Identical: both are the same checkpoint (δ = 0), an edit changes nothing' },
  compatible: { tone: 'ok', text: () => '✓ Compatible' },
};

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
      <p className={`verdict ${VERDICTS[report.verdict].tone}`} data-testid="pair-verdict" data-verdict={report.verdict}>
        {VERDICTS[report.verdict].text(count(report, 'error'), count(report, 'warning'))} · {report.sharedTensors} shared tensors
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
