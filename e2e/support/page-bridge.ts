/**
 * Functions run inside the Electron page with page.evaluate (Playwright sends their source, so
 * each is self-contained). They use window.crane the way the UI does, without the UI's code.
 * The root tsconfig has no DOM lib, hence the minimal structural types on globalThis. Constants
 * (the port message's type) come in as arguments: a function's source cannot import.
 */
interface PagePort {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  start(): void;
}

interface PageGlobals {
  crane?: {
    requestEnginePort(): Promise<{ nonce: string }>;
    onEngineExit(listener: (exit: { code: number | null; reason: string }) => void): () => void;
    restartEngine(): Promise<void>;
  };
  addEventListener(type: 'message', listener: (event: { source: unknown; data: unknown; ports: readonly PagePort[] }) => void): void;
  __engineExits?: string[];
}

/** Asks main for an engine port, sends a ping over it and returns the reply text. */
export async function pingThroughBridge(portMessageType: string): Promise<string> {
  const page = globalThis as unknown as PageGlobals;
  const bridge = page.crane;
  if (bridge === undefined) throw new Error('window.crane is missing');
  const ports = new Map<string, PagePort>();
  page.addEventListener('message', (event) => {
    const data = event.data as { type?: unknown; nonce?: unknown } | null;
    const port = event.ports[0];
    if (event.source === page && data?.type === portMessageType && typeof data.nonce === 'string' && port !== undefined) ports.set(data.nonce, port);
  });
  const { nonce } = await bridge.requestEnginePort();
  const started = Date.now();
  while (!ports.has(nonce)) {
    if (Date.now() - started > 10_000) throw new Error('no engine port arrived');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const port = ports.get(nonce) as PagePort;
  const reply = new Promise<string>((resolve) => port.addEventListener('message', ({ data }) => resolve(String(data))));
  port.start();
  port.postMessage(JSON.stringify({ id: 1, method: 'ping', params: {} }));
  return reply;
}

/** Records engine exits the bridge reports into window.__engineExits. */
export function recordEngineExits(): void {
  const page = globalThis as unknown as PageGlobals;
  page.__engineExits = [];
  page.crane?.onEngineExit(({ reason }) => page.__engineExits?.push(reason));
}

export function engineExits(): string[] {
  return (globalThis as unknown as PageGlobals).__engineExits ?? [];
}

export async function restartEngine(): Promise<void> {
  await (globalThis as unknown as PageGlobals).crane?.restartEngine();
}

/** What the page's global scope exposes: the bridge keys, and whether Node leaked in. */
export function pageSurface(): { craneKeys: string[]; bridgeVersion: unknown; node: string[] } {
  const g = globalThis as unknown as Record<string, unknown> & { crane?: Record<string, unknown> };
  return {
    craneKeys: Object.keys(g.crane ?? {}).sort(),
    bridgeVersion: g.crane?.['bridgeVersion'],
    node: ['require', 'process', 'Buffer', 'module', 'ipcRenderer'].filter((name) => typeof g[name] !== 'undefined'),
  };
}
