/**
 * What the UI can say about a typed path before asking the engine (which validates again: the
 * protocol's path rules are absolute, normalised, existing, of the expected kind).
 */
export type PathCheck = { ok: true } | { ok: false; message: string };

const WINDOWS_ABSOLUTE = /^[A-Za-z]:[\\/]/;

export function checkPath(raw: string): PathCheck {
  const path = raw.trim();
  if (path === '') return { ok: false, message: 'Enter a folder path.' };
  if (path.includes('\0')) return { ok: false, message: 'The path contains a NUL character.' };
  if (path !== raw) return { ok: false, message: 'Remove the spaces around the path.' };
  const windows = WINDOWS_ABSOLUTE.test(path);
  if (!windows && !path.startsWith('/')) return { ok: false, message: 'Use an absolute path (starting with / or a drive letter).' };
  if (path.startsWith('~')) return { ok: false, message: '~ is not expanded: write the full path.' };
  const segments = path.split(windows ? /[\\/]/ : '/').slice(1);
  if (segments.some((s) => s === '.' || s === '..')) return { ok: false, message: 'The path must be normalised (no . or .. segments).' };
  if (segments.slice(0, -1).some((s) => s === '')) return { ok: false, message: 'The path has an empty segment (//).' };
  return { ok: true };
}
