/**
 * A slider bound to one number of the settings. It subscribes to that number only, so moving α
 * re-renders the α slider and nothing else in the sidebar.
 */
import type { CraneSettings } from '../../protocol.ts';
import { useApp } from '../../store/app-context.tsx';
import { SliderField, type SliderFieldProps } from '../common/SliderField.tsx';

export interface SettingSliderProps extends Omit<SliderFieldProps, 'value' | 'onChange'> {
  select: (settings: CraneSettings) => number;
  apply: (settings: CraneSettings, value: number) => CraneSettings;
  /** Undo groups consecutive moves with the same key into one step. */
  coalesce: string;
}

export function SettingSlider({ select, apply, coalesce, ...field }: SettingSliderProps) {
  const value = useApp((s) => select(s.settings.current));
  const update = useApp((s) => s.updateSettings);
  return <SliderField {...field} value={value} onChange={(v) => update((s) => apply(s, v), { coalesce })} />;
}
