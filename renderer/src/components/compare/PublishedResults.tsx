/** The paper's numbers (shared/spec/crane.md), for orientation next to this pair's results. */
const ROWS: [string, string, string][] = [
  ['Instruct', '46.7', '72.8'],
  ['Thinking', '34.9', '35.4'],
  ['Task Arithmetic', '47.2', '—'],
  ['TIES', '47.2', '—'],
  ['SLERP', '43.6', '—'],
  ['AIM-TA', '46.7', '80.5'],
  ['CRANE', '66.2', '81.5'],
];

export function PublishedResults() {
  return (
    <section className="panel" aria-labelledby="published-title">
      <h2 id="published-title">Published (Roo-Eval pass@1)</h2>
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Method</th>
            <th scope="col">Qwen3-30B-A3B</th>
            <th scope="col">Qwen3-Next-80B</th>
          </tr>
        </thead>
        <tbody>
          {ROWS.map(([m, a, b]) => (
            <tr key={m} className={m === 'CRANE' ? 'strong' : undefined}>
              <th scope="row">{m}</th>
              <td>{a}</td>
              <td>{b}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="small muted">SWE-bench Verified (resolved /500): 30B 108 → 122 with CRANE; 80B 168 → 180.</p>
    </section>
  );
}
