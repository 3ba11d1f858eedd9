/** The engine connection and which methods the engine has said are not built yet. */
import type { RequestName } from '../protocol.ts';
import type { SliceCreator } from './slice.ts';

export type ConnectionStatus = 'connecting' | 'open' | 'closed' | 'failed';

export interface ConnectionSlice {
  connection: { status: ConnectionStatus; label: string; synthetic: boolean; message: string | null };
  /** Methods that answered 'not-implemented', with the engine's message. */
  unavailable: Partial<Record<RequestName, string>>;
  setConnection(patch: Partial<ConnectionSlice['connection']>): void;
  markUnavailable(method: RequestName, message: string): void;
}

export const createConnectionSlice: SliceCreator<ConnectionSlice> = (set) => ({
  connection: { status: 'connecting', label: '', synthetic: false, message: null },
  unavailable: {},
  setConnection: (patch) => set((s) => ({ connection: { ...s.connection, ...patch } })),
  markUnavailable: (method, message) => set((s) => ({ unavailable: { ...s.unavailable, [method]: message } })),
});
