/** Shared types of the store's slices. */
import type { StateCreator } from 'zustand';
import type { ErrorInfo } from '../protocol.ts';
import { ProtocolError } from '../protocol.ts';
import type { AppState } from './app-store.ts';

export type SliceCreator<T> = StateCreator<AppState, [], [], T>;

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

/** What a view needs to show for an engine call: loading, its result, or why it failed. */
export interface Loadable<T> {
  readonly status: LoadStatus;
  readonly result: T | null;
  readonly error: ErrorInfo | null;
}

export const idle = <T>(): Loadable<T> => ({ status: 'idle', result: null, error: null });
export const loading = <T>(previous: Loadable<T>): Loadable<T> => ({ status: 'loading', result: previous.result, error: null });
export const ready = <T>(result: T): Loadable<T> => ({ status: 'ready', result, error: null });
export const failed = <T>(previous: Loadable<T>, error: ErrorInfo): Loadable<T> => ({ status: 'error', result: previous.result, error });

export function toErrorInfo(error: unknown): ErrorInfo {
  if (error instanceof ProtocolError) return error.toInfo();
  return { code: 'engine-error', message: error instanceof Error ? error.message : String(error) };
}
