/** A folder path typed by hand (browser mode) or picked natively (Electron), checked as typed. */
import { useId, useState } from 'react';
import { checkPath } from '../../lib/path-check.ts';
import { craneBridge, type CraneBridge } from '../../engine-link/crane-bridge.ts';

export interface PathFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  purpose: Parameters<CraneBridge['pickDirectory']>[0];
  placeholder?: string;
  /** An empty value is fine (the Base checkpoint). */
  optional?: boolean;
}

export function PathField({ label, value, onChange, purpose, placeholder, optional = false }: PathFieldProps) {
  const id = useId();
  const [touched, setTouched] = useState(false);
  const check = checkPath(value);
  const bridge = craneBridge();
  const showError = touched && !check.ok && !(optional && value.trim() === '');
  return (
    <div className="path-field">
      <label htmlFor={id}>{label}</label>
      <div className="path-row">
        <input
          id={id}
          type="text"
          spellCheck={false}
          value={value}
          placeholder={placeholder ?? '/absolute/path/to/folder'}
          aria-invalid={showError}
          aria-describedby={showError ? `${id}-error` : undefined}
          onChange={(e) => onChange(e.currentTarget.value)}
          onBlur={() => setTouched(true)}
        />
        {bridge !== undefined && (
          <button type="button" onClick={() => void bridge.pickDirectory(purpose).then((dir) => dir !== null && onChange(dir))}>
            Browse…
          </button>
        )}
      </div>
      {showError && (
        <p id={`${id}-error`} className="field-error">
          {check.message}
        </p>
      )}
    </div>
  );
}
