import { useApp } from '../../store/app-context.tsx';

export function ThemeToggle() {
  const theme = useApp((s) => s.ui.theme);
  const setTheme = useApp((s) => s.setTheme);
  const next = theme === 'light' ? 'dark' : 'light';
  return (
    <button
      type="button"
      aria-label={`Switch to ${next} theme`}
      onClick={() => {
        setTheme(next);
        try {
          localStorage.setItem('crane.theme', next);
        } catch {
          // Storage may be unavailable (private windows); the theme still switches.
        }
      }}
    >
      {theme === 'light' ? '☾ Dark' : '☀ Light'}
    </button>
  );
}
