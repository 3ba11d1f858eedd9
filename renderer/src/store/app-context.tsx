/** React access to the one store and the engine actions. */
import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { AppState, AppStore } from './app-store.ts';
import type { EngineActions } from './engine-actions.ts';

interface AppContextValue {
  readonly store: AppStore;
  readonly actions: EngineActions;
}

const AppContext = createContext<AppContextValue | null>(null);

export function AppProvider({ store, actions, children }: AppContextValue & { children: ReactNode }) {
  return <AppContext.Provider value={{ store, actions }}>{children}</AppContext.Provider>;
}

function useAppContext(): AppContextValue {
  const value = useContext(AppContext);
  if (value === null) throw new Error('useApp outside <AppProvider>');
  return value;
}

/** Select from the store; return stable values (slices' objects or primitives), not new objects. */
export function useApp<T>(selector: (state: AppState) => T): T {
  return useStore(useAppContext().store, selector);
}

export const useAppStore = (): AppStore => useAppContext().store;
export const useActions = (): EngineActions => useAppContext().actions;
