import { describe, expect, it } from 'vitest';
import { createAppStore } from '../store/app-store.ts';
import { EngineActions } from '../store/engine-actions.ts';
import { bindBridgeCommands } from './bridge-commands.ts';
import type { CraneBridge, MenuCommand, OpenRequest } from './crane-bridge.ts';

function fakeBridge() {
  const menu: ((c: MenuCommand) => void)[] = [];
  const open: ((r: OpenRequest) => void)[] = [];
  const bridge: CraneBridge = {
    bridgeVersion: 1,
    platform: 'linux',
    requestEnginePort: () => Promise.resolve({ nonce: 'n'.repeat(16) }),
    onEngineExit: () => () => undefined,
    onEngineStart: () => () => undefined,
    restartEngine: () => Promise.resolve(),
    pickDirectory: () => Promise.resolve(null),
    onMenuCommand: (l) => (menu.push(l), () => undefined),
    onOpenRequest: (l) => (open.push(l), () => undefined),
  };
  return { bridge, menu: (c: MenuCommand) => menu.forEach((l) => l(c)), open: (r: OpenRequest) => open.forEach((l) => l(r)) };
}

describe('bridge commands', () => {
  it('carries out menu commands and open requests', async () => {
    const store = createAppStore();
    const { bridge, menu, open } = fakeBridge();
    bindBridgeCommands(bridge, store, new EngineActions(store));
    store.getState().updateSettings({ alpha: 0.5 });
    menu('undo');
    expect(store.getState().settings.current.alpha).toBe(0.25);
    menu('export');
    expect(store.getState().exporting.open).toBe(true);
    open({ kind: 'pair', instruct: '/m/i', thinking: '/m/t' });
    expect(store.getState().pair).toMatchObject({ instructPath: '/m/i', thinkingPath: '/m/t' });
    await new Promise((r) => setTimeout(r, 0));
    expect(store.getState().pair.summary.error?.code).toBe('disconnected');
  });
});
