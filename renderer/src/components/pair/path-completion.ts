/**
 * Completing a typed folder path: the folder to list and the start of the name being typed
 * ("/data/proj" → list "/data", names starting "proj"; "/data/" → every folder in "/data"), and
 * the full paths offered for the names the engine listed.
 */

/** null when there is nothing to list yet (a relative or empty path). */
export function completionQuery(typed: string): { dir: string; prefix: string } | null {
  if (!typed.startsWith('/')) return null;
  const cut = typed.lastIndexOf('/');
  const dir = cut === 0 ? '/' : typed.slice(0, cut);
  // A doubled separator or a "." segment is not a folder the engine lists (paths must be normalised).
  if (typed.includes('//') || /(^|\/)\.\.?(\/|$)/.test(dir)) return null;
  return { dir, prefix: typed.slice(cut + 1) };
}

/** The paths to offer: folders whose name starts with the prefix (case-sensitive, as the disk is), the typed one itself left out. */
export function completions(query: { dir: string; prefix: string }, names: readonly string[]): string[] {
  const base = query.dir === '/' ? '/' : `${query.dir}/`;
  return names.filter((name) => name.startsWith(query.prefix) && name !== query.prefix).map((name) => base + name);
}
