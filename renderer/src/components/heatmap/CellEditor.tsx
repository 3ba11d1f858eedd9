/**
 * Direct gate editing in the grid (SuperMerger-style block weights): a number field over the
 * cell being edited. Enter or leaving the field sets the block's S (an override, as the block
 * editor sets it); an empty field gives the block its computed S back; Escape, or leaving the
 * field untouched, changes nothing.
 */
import { useState, type KeyboardEvent } from 'react';
import { formatNumber } from '../../lib/format.ts';
import { cellRect, type CellRef, type HeatmapLayout } from '../../lib/heatmap-geometry.ts';

/** What editing a cell of a heatmap changes. */
export interface CellEdit {
  /** The S the field starts from (the override if any, else the computed one). */
  value(cell: CellRef): number;
  /** A new S for the cell's block; null clears the override. */
  commit(cell: CellRef, value: number | null): void;
  /** The block's name for the field's label ("layer 3 · attention"). */
  describe(cell: CellRef): string;
}

export function CellEditor({ cell, layout, edit, scrollTop, onClose }: { cell: CellRef; layout: HeatmapLayout; edit: CellEdit; scrollTop: number; onClose: () => void }) {
  const start = edit.value(cell);
  const initial = Number.isFinite(start) ? formatNumber(start) : '';
  const [text, setText] = useState(initial);
  const value = text.trim() === '' ? null : Number(text);
  const valid = value === null || (Number.isFinite(value) && value >= 0);
  const finish = () => {
    // An untouched field changes nothing (no override equal to the computed S).
    if (valid && text !== initial) edit.commit(cell, value);
    onClose();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') finish();
    if (e.key === 'Escape') onClose();
  };
  const r = cellRect(layout, cell);
  return (
    <input
      className="cell-editor"
      type="number"
      min={0}
      step={0.01}
      autoFocus
      aria-label={`Gate S of ${edit.describe(cell)}`}
      aria-invalid={!valid}
      title="Enter sets S for this block; empty gives it back its computed S; Escape cancels"
      value={text}
      style={{ position: 'absolute', left: r.x, top: r.y - scrollTop, width: Math.max(64, r.width), height: Math.max(22, r.height) }}
      onChange={(e) => setText(e.currentTarget.value)}
      onKeyDown={onKeyDown}
      onBlur={finish}
    />
  );
}
