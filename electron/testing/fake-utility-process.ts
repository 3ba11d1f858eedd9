/**
 * Runs a built engine-process.mjs in plain Node, as Electron's utility process would: a fake
 * `process.parentPort` delivers one `connect` message with a MessagePortMain look-alike made
 * from a worker_threads port. The other end answers a ping and the result goes to stdout.
 * Usage: node --import tsx electron/testing/fake-utility-process.ts dist/electron/engine-process.mjs
 */
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

const bundle = process.argv[2];
if (bundle === undefined) throw new Error('usage: fake-utility-process.ts ENGINE_BUNDLE');
const parentPort = new EventEmitter();
Object.assign(process, { parentPort });
await import(pathToFileURL(bundle).href);

const { port1, port2 } = new MessageChannel();
const portMain = Object.assign(new EventEmitter(), {
  postMessage: (message: unknown) => port2.postMessage(message),
  start: () => undefined,
});
port2.on('message', (data: unknown) => portMain.emit('message', { data }));
parentPort.emit('message', { data: { type: 'connect' }, ports: [portMain] });

port1.on('message', (reply: unknown) => {
  console.log(typeof reply === 'string' ? reply : `binary ${String(reply)}`);
  port1.close();
  process.exit(0);
});
port1.postMessage(JSON.stringify({ id: 1, method: 'ping', params: {} }));
