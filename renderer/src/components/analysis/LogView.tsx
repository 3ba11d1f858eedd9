import { useEffect, useRef } from 'react';
import type { LogLine } from '../../store/analysis-slice.ts';

export function LogView({ logs }: { logs: readonly LogLine[] }) {
  const ref = useRef<HTMLOListElement | null>(null);
  useEffect(() => {
    const el = ref.current;
    if (el !== null) el.scrollTop = el.scrollHeight;
  }, [logs]);
  return (
    <section className="panel" aria-labelledby="log-title">
      <h2 id="log-title">Engine log</h2>
      {logs.length === 0 ? (
        <p className="muted empty">No log lines yet.</p>
      ) : (
        <ol className="log" ref={ref} tabIndex={0} aria-label="Engine log lines">
          {logs.map((line, i) => (
            <li key={i} className={`log-${line.level}`}>
              <time className="muted">{new Date(line.at).toLocaleTimeString()}</time> <span className="badge">{line.level}</span> {line.message}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
