/**
 * The folders to offer while a path is typed: the engine lists the folder being typed in
 * (listDirectories, which answers only inside the data folder and the open project's folders),
 * once per folder and a moment after typing pauses; the names that start with what follows the
 * last "/" become full paths. Nothing is offered where the engine cannot or will not list.
 */
import { useEffect, useMemo, useState } from 'react';
import { useActions } from '../../store/app-context.tsx';
import { completionQuery, completions } from './path-completion.ts';

const PAUSE_MS = 120;

export function useFolderCompletions(typed: string): readonly string[] {
  const actions = useActions();
  const query = useMemo(() => completionQuery(typed.trim()), [typed]);
  const dir = query?.dir ?? null;
  const [listed, setListed] = useState<{ dir: string; names: readonly string[] } | null>(null);
  useEffect(() => {
    if (dir === null || listed?.dir === dir) return;
    let live = true;
    const timer = setTimeout(() => {
      actions.run('listDirectories', { dir }).then(
        (listing) => live && setListed({ dir, names: listing.directories }),
        // Outside the roots, missing, or an engine without the method: nothing to offer here.
        () => live && setListed({ dir, names: [] }),
      );
    }, PAUSE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [actions, dir, listed]);
  return useMemo(() => (query !== null && listed?.dir === query.dir ? completions(query, listed.names) : []), [query, listed]);
}
