/** A radio group drawn as segmented buttons (arrow keys move between options, as radios do). */
export interface SegmentOption<T extends string> {
  readonly value: T;
  readonly label: string;
  readonly title?: string;
}

export function SegmentedRadio<T extends string>({ label, name, options, value, onChange }: {
  label: string;
  name: string;
  options: readonly SegmentOption<T>[];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <div className="segmented" role="radiogroup" aria-label={label}>
      {options.map((o) => (
        <label key={o.value} className={o.value === value ? 'segment active' : 'segment'} title={o.title}>
          <input type="radio" name={name} value={o.value} checked={o.value === value} onChange={() => onChange(o.value)} />
          {o.label}
        </label>
      ))}
    </div>
  );
}
