import { useApp } from '../../store/app-context.tsx';

export function UndoRedoButtons() {
  const canUndo = useApp((s) => s.settings.past.length > 0);
  const canRedo = useApp((s) => s.settings.future.length > 0);
  const undo = useApp((s) => s.undo);
  const redo = useApp((s) => s.redo);
  return (
    <div className="button-row">
      <button type="button" onClick={undo} disabled={!canUndo} title="Undo (Ctrl+Z)" aria-keyshortcuts="Control+Z">
        Undo
      </button>
      <button type="button" onClick={redo} disabled={!canRedo} title="Redo (Ctrl+Shift+Z)" aria-keyshortcuts="Control+Shift+Z">
        Redo
      </button>
    </div>
  );
}
