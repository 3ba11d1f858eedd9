/**
 * A labelled range slider with a number box. Every input marks the latency clock, so the views
 * that repaint because of it can record slider-to-paint time.
 */
import { useId } from 'react';
import { markInput } from '../../lib/latency.ts';

export interface SliderFieldProps {
  label: string;
  value: number;
  min: number;
  max: number;
  step: number;
  onChange: (value: number) => void;
  format?: (value: number) => string;
  hint?: string;
  /** Log-scale slider (for k, whose useful range spans decades). */
  log?: boolean;
}

export function SliderField({ label, value, min, max, step, onChange, format, hint, log = false }: SliderFieldProps) {
  const id = useId();
  const toSlider = (v: number) => (log ? Math.log10(v) : v);
  const fromSlider = (v: number) => (log ? Number((10 ** v).toPrecision(3)) : v);
  const commit = (v: number) => {
    const next = Math.min(max, Math.max(min, v));
    // A range input snaps the value React wrote back to its step and then reports that as a
    // change: the same value again, which is not an input (nor a settings change).
    if (!Number.isFinite(v) || next === value) return;
    markInput();
    onChange(next);
  };
  return (
    <div className="slider-field">
      <label htmlFor={id}>
        {label}
        {hint !== undefined && <span className="hint"> {hint}</span>}
      </label>
      <div className="slider-row">
        <input
          id={id}
          type="range"
          min={toSlider(min)}
          max={toSlider(max)}
          step={log ? 0.01 : step}
          value={toSlider(value)}
          onChange={(e) => commit(fromSlider(Number(e.currentTarget.value)))}
          aria-valuetext={format ? format(value) : String(value)}
        />
        <input
          type="number"
          className="number"
          aria-label={`${label} value`}
          min={min}
          max={max}
          step="any"
          value={Number(value.toPrecision(4))}
          onChange={(e) => commit(Number(e.currentTarget.value))}
        />
      </div>
    </div>
  );
}
