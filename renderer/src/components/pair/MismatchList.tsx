export function MismatchList({ title, names }: { title: string; names: readonly string[] }) {
  if (names.length === 0) return null;
  return (
    <details className="mismatches">
      <summary>
        {title} ({names.length})
      </summary>
      <ul className="mono small">
        {names.slice(0, 200).map((n) => (
          <li key={n}>{n}</li>
        ))}
        {names.length > 200 && <li className="muted">… and {names.length - 200} more</li>}
      </ul>
    </details>
  );
}
