/**
 * Electron: the engine over a MessagePort the preload hands to the page. The hand-off and the
 * client are engine/protocol's connectDesktopEngine (nonce check, connectMessagePort, closing
 * on the bridge's onEngineExit), the same code the transport tests run.
 *
 * Reconnecting: each connect() asks main for a new port, so after the api closes (the engine
 * crashed, or Restart Engine replaced it) calling connect() again reaches the engine running
 * now. onEngineRestart says when a new engine process starts, for a page that lost its engine.
 */
import { connectDesktopEngine, type CraneBridge } from '../protocol.ts';
import type { EngineConnector } from './engine-api.ts';

export function electronConnector(bridge: CraneBridge, page: Window = window): EngineConnector {
  return {
    kind: 'electron',
    label: 'desktop engine',
    connect: () => connectDesktopEngine(bridge, page),
    onEngineRestart: (listener) => bridge.onEngineStart(listener),
  };
}
