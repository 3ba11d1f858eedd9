/** Whether project.json holds what is on screen: saved (with the time), unsaved, saving, or why saving failed. */
import { useApp } from '../../store/app-context.tsx';

const time = (at: number) => new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

export function SaveMarker() {
  const open = useApp((s) => s.project.state.result !== null);
  const save = useApp((s) => s.project.save);
  if (!open) return null;
  const text = {
    saved: save.at === null ? '✓ Saved' : `✓ Saved ${time(save.at)}`,
    unsaved: '● Unsaved changes',
    saving: 'Saving…',
    error: `✗ Not saved: ${save.error?.message ?? 'unknown error'}`,
  }[save.status];
  return (
    <span className={`save-marker ${save.status}`} data-testid="save-marker" data-status={save.status} role="status" title="Settings and measured results are saved to the project automatically">
      {text}
    </span>
  );
}
