/**
 * A layers × rows heatmap on a canvas: the gate heatmap (rows = blocks) and the expert heatmap
 * (rows = experts) are this with another source. The canvas is repainted from a store
 * subscription, not by React renders, so a slider move repaints without reconciling anything;
 * React only renders the tooltip, the legend and the frame around the canvas.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import type { ColorScale } from '../../lib/color-scale.ts';
import { cellAt, moveCell, type CellRef, type HeatmapLayout } from '../../lib/heatmap-geometry.ts';
import { markPaintedNow } from '../../lib/latency.ts';
import { useAppStore } from '../../store/app-context.tsx';
import type { AppState } from '../../store/app-store.ts';
import { useElementWidth } from '../common/use-element-width.ts';
import { CellEditor, type CellEdit } from './CellEditor.tsx';
import { cellsHoldValues, drawHeatmap } from './draw-heatmap.ts';
import { downloadBlob, heatmapCsv } from './heatmap-export.ts';
import type { HeatmapData } from './heatmap-data.ts';
import type { CellMark } from './heatmap-marks.ts';
import { HeatmapLegend } from './HeatmapLegend.tsx';

const LABEL_WIDTH = 92;

export function heatmapLayout(width: number, layers: number, groups: number): HeatmapLayout {
  const rowHeight = Math.max(4, Math.min(26, Math.floor(260 / Math.max(1, groups))));
  return { layers, groups, left: LABEL_WIDTH, top: 4, width: Math.max(60, width - LABEL_WIDTH - 12), height: rowHeight * groups };
}

/** What one heatmap paints, read from the store on every repaint (module-level objects: they must be stable). */
export interface HeatmapSource {
  data(state: AppState): HeatmapData | null;
  selected(state: AppState, data: HeatmapData): CellRef | null;
  marks(state: AppState, data: HeatmapData): readonly CellMark[];
  /** Axis titles: along x (layers) and y (rows). */
  axes(data: HeatmapData): { readonly x: string; readonly y: string };
}

export interface HeatmapCanvasProps {
  readonly source: HeatmapSource;
  readonly layers: number;
  readonly rows: number;
  /** The metric's name: legend, canvas label and file names. */
  readonly label: string;
  readonly rowNoun: string;
  readonly fileStem: string;
  readonly testId: string;
  onChoose(cell: CellRef): void;
  renderTooltip(cell: CellRef, layout: HeatmapLayout, scrollTop: number): ReactNode;
  /** Double-click (or F2 on the keyboard cursor) edits the cell's gate S in place. */
  readonly edit: CellEdit;
}

export function HeatmapCanvas({ source, layers, rows, label, rowNoun, fileStem, testId, onChoose, renderTooltip, edit }: HeatmapCanvasProps) {
  const store = useAppStore();
  const [frameRef, width] = useElementWidth<HTMLDivElement>(720);
  const canvasRef = useRef<HTMLCanvasElement | null>(null);
  const [hovered, setHovered] = useState<CellRef | null>(null);
  const [scale, setScale] = useState<ColorScale | null>(null);
  const [editing, setEditing] = useState<CellRef | null>(null);
  const [showValues, setShowValues] = useState(false);
  const hoveredRef = useRef<CellRef | null>(null);
  hoveredRef.current = hovered;
  const showValuesRef = useRef(showValues);
  showValuesRef.current = showValues;

  const layout = useMemo(() => heatmapLayout(width, layers, rows), [width, layers, rows]);

  const draw = useCallback(
    (state: AppState) => {
      const canvas = canvasRef.current;
      const data = source.data(state);
      if (canvas === null || data === null) return;
      const style = getComputedStyle(canvas);
      drawHeatmap(canvas, {
        layout,
        ...data,
        selected: source.selected(state, data),
        hovered: hoveredRef.current,
        marks: source.marks(state, data),
        axes: source.axes(data),
        values: showValuesRef.current,
        textColor: style.getPropertyValue('--text').trim() || '#222',
        accentColor: style.getPropertyValue('--accent').trim() || '#e4572e',
      });
      setScale((old) => (old !== null && old.min === data.scale.min && old.max === data.scale.max && old.kind === data.scale.kind ? old : data.scale));
      markPaintedNow('heatmap');
    },
    [layout, source],
  );

  // At most one draw per animation frame, however many store changes arrive in it.
  const frame = useRef<number | null>(null);
  const schedule = useCallback(() => {
    if (frame.current !== null) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = null;
      draw(store.getState());
    });
  }, [draw, store]);

  useEffect(() => {
    draw(store.getState());
    const unsubscribe = store.subscribe((s, prev) => {
      if (s.gates !== prev.gates || s.experts !== prev.experts || s.passes !== prev.passes || s.settings.current !== prev.settings.current || s.preview !== prev.preview || s.selection !== prev.selection || s.ui.theme !== prev.ui.theme) schedule();
    });
    return () => {
      unsubscribe();
      if (frame.current !== null) cancelAnimationFrame(frame.current);
      frame.current = null;
    };
  }, [store, draw, schedule]);

  useEffect(schedule, [hovered, showValues, schedule]);

  const toCell = (e: MouseEvent<HTMLCanvasElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    return cellAt(layout, e.clientX - rect.left, e.clientY - rect.top);
  };
  const sameCell = (a: CellRef | null, b: CellRef | null) => a?.layer === b?.layer && a?.groupIndex === b?.groupIndex;
  const hover = (cell: CellRef | null) => setHovered((old) => (sameCell(old, cell) ? old : cell));
  const choose = (cell: CellRef | null) => {
    if (cell !== null && cell.groupIndex < rows) onChoose(cell);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLCanvasElement>) => {
    if (layers === 0 || rows === 0) return;
    const state = store.getState();
    const data = source.data(state);
    const start = hovered ?? (data === null ? null : source.selected(state, data)) ?? { layer: 0, groupIndex: 0 };
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      choose(start);
      return;
    }
    if (e.key === 'F2') {
      e.preventDefault();
      setEditing(start);
      return;
    }
    const next = moveCell(start, e.key, layers, rows);
    if (next !== start) {
      e.preventDefault();
      hover(next);
    }
  };
  const exportCsv = () => {
    const data = source.data(store.getState());
    if (data !== null) downloadBlob(new Blob([heatmapCsv(data.matrix, data.groups)], { type: 'text/csv' }), `crane-${fileStem}.csv`);
  };

  return (
    <div className="heatmap" ref={frameRef}>
      <div className="heatmap-scroll">
        <canvas
          ref={canvasRef}
          className="heatmap-canvas"
          tabIndex={0}
          role="img"
          aria-label={`${label} heatmap: ${layers} layers × ${rows} ${rowNoun}. Arrow keys move, Enter selects.`}
          data-testid={testId}
          onMouseMove={(e) => hover(toCell(e))}
          onMouseLeave={() => hover(null)}
          onClick={(e) => choose(toCell(e))}
          onDoubleClick={(e) => setEditing(toCell(e))}
          onKeyDown={onKeyDown}
          onBlur={() => hover(null)}
        />
      </div>
      {hovered !== null && editing === null && renderTooltip(hovered, layout, canvasRef.current?.parentElement?.scrollTop ?? 0)}
      {editing !== null && <CellEditor cell={editing} layout={layout} edit={edit} scrollTop={canvasRef.current?.parentElement?.scrollTop ?? 0} onClose={() => setEditing(null)} />}
      <div className="heatmap-footer">
        {scale !== null && <HeatmapLegend scale={scale} label={label} />}
        <div className="button-row">
          <label className="check" title={cellsHoldValues(layout) ? 'Write each cell’s value in it' : 'The cells are too small for their values at this width'}>
            <input type="checkbox" checked={showValues} disabled={!cellsHoldValues(layout)} onChange={(e) => setShowValues(e.currentTarget.checked)} />
            Values in cells
          </label>
          <button type="button" className="small-button" onClick={exportCsv}>
            Export CSV
          </button>
          <button type="button" className="small-button" onClick={() => canvasRef.current?.toBlob((blob) => blob !== null && downloadBlob(blob, `crane-${fileStem}.png`))}>
            Export PNG
          </button>
        </div>
      </div>
    </div>
  );
}
