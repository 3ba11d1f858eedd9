/**
 * Entry of the engine's utility process. Main sends it one MessagePort per window connection
 * (`{type: 'connect'}` with the port transferred); each gets its own EngineHost over the same
 * handlers. Heavy work happens here, never in main or the renderer.
 */
import type { MessagePortMain } from 'electron';
import { createEngineHandlers } from '../engine/server/engine-handlers.ts';
import { messagePortMainEndpoint, serveEnginePort } from './engine-port-host.ts';

const parentPort = process.parentPort;
const handlers = createEngineHandlers();

parentPort.on('message', (event: { data: unknown; ports: MessagePortMain[] }) => {
  const [port] = event.ports;
  // Main is the only sender on parentPort; anything without a port is ignored, not trusted.
  if ((event.data as { type?: unknown } | null)?.type !== 'connect' || port === undefined) return;
  serveEnginePort(messagePortMainEndpoint(port), handlers);
});

// A bug that escapes a handler must not go unnoticed: log it and let main see the exit.
process.on('uncaughtException', (error) => {
  console.error('engine: uncaught exception:', error);
  process.exit(70);
});
