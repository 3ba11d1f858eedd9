/**
 * Runs a built engine-process.mjs in plain Node, as Electron's utility process would: a fake
 * `process.parentPort` delivers one `connect` message with a MessagePortMain look-alike made
 * from a worker_threads port. Over it the harness sends a ping and getProjectState and prints
 * each reply (one JSON line each) to stdout. Arguments after the bundle reach the engine's argv,
 * as main's `utilityProcess.fork(entry, args)` does (`--data-dir DIR`).
 * Usage: node --import tsx electron/testing/fake-utility-process.ts dist/electron/engine-process.mjs [--data-dir DIR]
 */
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

const bundle = process.argv[2];
if (bundle === undefined) throw new Error('usage: fake-utility-process.ts ENGINE_BUNDLE [--data-dir DIR]');
const parentPort = new EventEmitter();
Object.assign(process, { parentPort });
await import(pathToFileURL(bundle).href);

const { port1, port2 } = new MessageChannel();
// Like MessagePortMain, messages queue until start(): the engine may take the port before its
// project is open and listen only then.
const portMain = Object.assign(new EventEmitter(), {
  postMessage: (message: unknown) => port2.postMessage(message),
  start: () => void port2.on('message', (data: unknown) => portMain.emit('message', { data })),
});
parentPort.emit('message', { data: { type: 'connect' }, ports: [portMain] });

const requests = [
  { id: 1, method: 'ping', params: {} },
  { id: 2, method: 'getProjectState', params: {} },
];
let answered = 0;
port1.on('message', (reply: unknown) => {
  console.log(typeof reply === 'string' ? reply : `binary ${String(reply)}`);
  if (++answered < requests.length) return;
  port1.close();
  process.exit(0);
});
for (const request of requests) port1.postMessage(JSON.stringify(request));
