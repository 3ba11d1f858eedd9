/** The engine connection and which methods the engine has said are not built yet. */
import type { RequestName } from '../protocol.ts';
import type { SliceCreator } from './slice.ts';

/** 'reconnecting': the connection was lost (or never made) and another attempt is scheduled. */
export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting';

export interface ConnectionSlice {
  connection: {
    status: ConnectionStatus;
    label: string;
    synthetic: boolean;
    /** Why the last connection or attempt ended. */
    message: string | null;
    /** While reconnecting: milliseconds from the loss to the next attempt. */
    retryInMs: number | null;
  };
  /** Methods that answered 'not-implemented', with the engine's message. */
  unavailable: Partial<Record<RequestName, string>>;
  setConnection(patch: Partial<ConnectionSlice['connection']>): void;
  markUnavailable(method: RequestName, message: string): void;
  /** Starts the next connection attempt now instead of after the back-off (the banner's button). */
  reconnectNow(): void;
  setReconnectNow(reconnect: () => void): void;
}

export const createConnectionSlice: SliceCreator<ConnectionSlice> = (set) => ({
  connection: { status: 'connecting', label: '', synthetic: false, message: null, retryInMs: null },
  unavailable: {},
  setConnection: (patch) => set((s) => ({ connection: { ...s.connection, ...patch } })),
  markUnavailable: (method, message) => set((s) => ({ unavailable: { ...s.unavailable, [method]: message } })),
  reconnectNow: () => undefined,
  setReconnectNow: (reconnect) => set({ reconnectNow: reconnect }),
});
