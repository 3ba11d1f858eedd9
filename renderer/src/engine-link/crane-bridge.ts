/**
 * The page's handle on the Electron preload's bridge (`window.crane`). The contract itself —
 * CraneBridge, the port hand-off message, the menu and open-request types — is defined once in
 * engine/protocol/desktop-bridge.ts, which the preload is type-checked against too.
 */
import type { CraneBridge } from '../protocol.ts';

export type { CraneBridge, MenuCommand, OpenRequest } from '../protocol.ts';

declare global {
  interface Window {
    crane?: CraneBridge;
  }
}

export function craneBridge(): CraneBridge | undefined {
  const bridge = typeof window === 'undefined' ? undefined : window.crane;
  return bridge?.bridgeVersion === 1 ? bridge : undefined;
}
