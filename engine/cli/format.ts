/** Plain-text tables for the CLI (byte sizes: engine/protocol/format-bytes.ts, shared with the UI). */

/** Left-aligned columns; the last column is not padded. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** One flag's help line: the description starts at `column`, or on the next line when the flag is too long. */
export function flagHelpLine(flag: string, column: number, text: string): string {
  return `${flag.length < column ? flag.padEnd(column) : `${flag}\n${' '.repeat(column)}`}${text}`;
}
