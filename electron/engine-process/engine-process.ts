/**
 * Entry of the engine's utility process. Main starts it with `--data-dir DIR` (the app's
 * userData, or CRANE_DATA_DIR): the demo project is prepared there and opened before any window
 * is served, so the desktop app starts on the demo pair as `crane serve` does. Main sends one
 * MessagePort per window connection (`{type: 'connect'}` with the port transferred); each gets
 * its own EngineHost over the same handlers and session. Heavy work happens here, never in main
 * or the renderer.
 */
import type { MessagePortMain } from 'electron';
import { messagePortMainEndpoint, serveEnginePort } from './engine-port-host.ts';
import { dataDirFromArgs, startEngineHandlers } from './engine-start.ts';

const parentPort = process.parentPort;
// A port that arrives while the project opens waits: its messages queue until it is started.
const ready = startEngineHandlers(dataDirFromArgs(process.argv));

parentPort.on('message', (event: { data: unknown; ports: MessagePortMain[] }) => {
  const [port] = event.ports;
  // Main is the only sender on parentPort; anything without a port is ignored, not trusted.
  if ((event.data as { type?: unknown } | null)?.type !== 'connect' || port === undefined) return;
  void ready.then(({ handlers }) => serveEnginePort(messagePortMainEndpoint(port), handlers));
});

// A bug that escapes a handler must not go unnoticed: log it and let main see the exit.
process.on('uncaughtException', (error) => {
  console.error('engine: uncaught exception:', error);
  process.exit(70);
});
