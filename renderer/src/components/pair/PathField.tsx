/**
 * A folder path typed by hand (browser mode) or picked natively (Electron), checked as typed.
 * Typing offers the folders inside the one being typed in (a datalist the browser shows under
 * the field), listed by the engine inside the data folder and the open project's folders.
 */
import { useId, useState } from 'react';
import { checkPath } from '../../lib/path-check.ts';
import { craneBridge, type CraneBridge } from '../../engine-link/crane-bridge.ts';
import { useFolderCompletions } from './use-folder-completions.ts';

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
  const folders = useFolderCompletions(value);
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
          list={`${id}-folders`}
          aria-invalid={showError}
          aria-describedby={showError ? `${id}-error` : undefined}
          onChange={(e) => onChange(e.currentTarget.value)}
          onBlur={() => setTouched(true)}
        />
        <datalist id={`${id}-folders`} data-testid="folder-completions">
          {folders.map((folder) => (
            <option key={folder} value={folder} />
          ))}
        </datalist>
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
