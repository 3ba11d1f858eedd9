/**
 * The layers × components gate heatmap. The canvas is repainted from a store subscription, not by
 * React renders, so a slider move repaints without reconciling anything; React only renders the
 * tooltip, the legend and the frame around the canvas.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import type { ColorScale } from '../../lib/color-scale.ts';
import { cellAt, moveCell, type CellRef, type HeatmapLayout } from '../../lib/heatmap-geometry.ts';
import { markPaintedNow } from '../../lib/latency.ts';
import { useApp, useAppStore } from '../../store/app-context.tsx';
import type { AppState } from '../../store/app-store.ts';
import { HEATMAP_METRICS, type HeatmapMetric } from '../../store/gates-slice.ts';
import { useElementWidth } from '../common/use-element-width.ts';
import { drawHeatmap } from './draw-heatmap.ts';
import { downloadBlob, heatmapCsv } from './heatmap-export.ts';
import { overrideMarks } from './heatmap-marks.ts';
import { heatmapData } from './heatmap-data.ts';
import { HeatmapLegend } from './HeatmapLegend.tsx';
import { HeatmapTooltip } from './HeatmapTooltip.tsx';

const LABEL_WIDTH = 92;

export function heatmapLayout(width: number, layers: number, groups: number): HeatmapLayout {
  const rowHeight = Math.max(4, Math.min(26, Math.floor(260 / Math.max(1, groups))));
  return { layers, groups, left: LABEL_WIDTH, top: 4, width: Math.max(60, width - LABEL_WIDTH - 12), height: rowHeight * groups };
}

const selectedCell = (s: AppState): CellRef | null => {
  const block = s.selection.block;
  const groups = s.gates.metrics.result?.groups;
  if (block === null || groups === undefined) return null;
  const groupIndex = groups.indexOf(block.group);
  return groupIndex < 0 ? null : { layer: block.layer, groupIndex };
};

function exportCsv(state: AppState, metric: HeatmapMetric): void {
  const data = heatmapData(state, metric);
  if (data !== null) downloadBlob(new Blob([heatmapCsv(data.matrix, data.groups)], { type: 'text/csv' }), `crane-${metric}.csv`);
}

export function GateHeatmap() {
  const store = useAppStore();
  const metric = useApp((s) => s.gates.metric);
  const metrics = useApp((s) => s.gates.metrics.result);
  const select = useApp((s) => s.select);
  const [frameRef, width] = useElementWidth<HTMLDivElement>(720);
  const canvasRef = useRef<HTMLCanvasElement | null>(null);
  const [hovered, setHovered] = useState<CellRef | null>(null);
  const [scale, setScale] = useState<ColorScale | null>(null);
  const hoveredRef = useRef<CellRef | null>(null);
  hoveredRef.current = hovered;

  const layout = useMemo(() => heatmapLayout(width, metrics?.layers ?? 0, metrics?.groups.length ?? 0), [width, metrics]);

  const draw = useCallback(
    (state: AppState) => {
      const canvas = canvasRef.current;
      const data = heatmapData(state, state.gates.metric);
      if (canvas === null || data === null) return;
      const style = getComputedStyle(canvas);
      drawHeatmap(canvas, {
        layout,
        ...data,
        selected: selectedCell(state),
        hovered: hoveredRef.current,
        marks: overrideMarks(state.settings.current.overrides, data.groups, data.matrix.rows),
        axes: { x: 'layer', y: data.groups.some((g) => g.startsWith('expert')) ? 'block / expert' : 'block' },
        textColor: style.getPropertyValue('--text').trim() || '#222',
        accentColor: style.getPropertyValue('--accent').trim() || '#e4572e',
      });
      setScale((old) => (old !== null && old.min === data.scale.min && old.max === data.scale.max && old.kind === data.scale.kind ? old : data.scale));
      markPaintedNow('heatmap');
    },
    [layout],
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
      if (s.gates !== prev.gates || s.settings.current !== prev.settings.current || s.preview !== prev.preview || s.selection !== prev.selection || s.ui.theme !== prev.ui.theme) schedule();
    });
    return () => {
      unsubscribe();
      if (frame.current !== null) cancelAnimationFrame(frame.current);
      frame.current = null;
    };
  }, [store, draw, schedule]);

  useEffect(schedule, [hovered, schedule]);

  const toCell = (e: MouseEvent<HTMLCanvasElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    return cellAt(layout, e.clientX - rect.left, e.clientY - rect.top);
  };
  const sameCell = (a: CellRef | null, b: CellRef | null) => a?.layer === b?.layer && a?.groupIndex === b?.groupIndex;
  const hover = (cell: CellRef | null) => setHovered((old) => (sameCell(old, cell) ? old : cell));
  const choose = (cell: CellRef | null) => {
    const group = cell === null ? undefined : metrics?.groups[cell.groupIndex];
    if (cell !== null && group !== undefined) select({ layer: cell.layer, group });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLCanvasElement>) => {
    if (metrics === null) return;
    const start = hovered ?? selectedCell(store.getState()) ?? { layer: 0, groupIndex: 0 };
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      choose(start);
      return;
    }
    const next = moveCell(start, e.key, metrics.layers, metrics.groups.length);
    if (next !== start) {
      e.preventDefault();
      hover(next);
    }
  };

  const label = HEATMAP_METRICS.find((m) => m.id === metric)?.label ?? metric;
  return (
    <div className="heatmap" ref={frameRef}>
      <div className="heatmap-scroll">
        <canvas
          ref={canvasRef}
          className="heatmap-canvas"
          tabIndex={0}
          role="img"
          aria-label={`${label} heatmap: ${metrics?.layers ?? 0} layers × ${metrics?.groups.length ?? 0} groups. Arrow keys move, Enter selects.`}
          data-testid="gate-heatmap"
          onMouseMove={(e) => hover(toCell(e))}
          onMouseLeave={() => hover(null)}
          onClick={(e) => choose(toCell(e))}
          onKeyDown={onKeyDown}
          onBlur={() => hover(null)}
        />
      </div>
      {hovered !== null && <HeatmapTooltip cell={hovered} layout={layout} metric={metric} scrollTop={canvasRef.current?.parentElement?.scrollTop ?? 0} />}
      <div className="heatmap-footer">
        {scale !== null && <HeatmapLegend scale={scale} label={label} />}
        <div className="button-row">
          <button type="button" className="small-button" onClick={() => exportCsv(store.getState(), metric)}>
            Export CSV
          </button>
          <button type="button" className="small-button" onClick={() => canvasRef.current?.toBlob((blob) => blob !== null && downloadBlob(blob, `crane-${metric}.png`))}>
            Export PNG
          </button>
        </div>
      </div>
    </div>
  );
}
