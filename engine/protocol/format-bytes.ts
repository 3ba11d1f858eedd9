/**
 * Byte counts for people, in binary units with three significant digits: "512 B", "1.50 KiB",
 * "12.3 MiB", "118 GiB". The CLI and the UI print sizes with this one function, so a checkpoint
 * reads the same in `crane inspect` and in the studio (it sits on the protocol floor, which the
 * renderer bundles).
 */
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${bytes} B`;
  return `${value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0)} ${UNITS[unit]}`;
}
