/**
 * Node's worker_threads MessageChannel stands in for Electron's: the same structured clone and
 * ArrayBuffer transfer semantics, so the MessagePort transport is tested without Electron.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { MessagePortLike } from '../../engine/protocol/message-port-transport.ts';
import type { PortEndpoint } from '../engine-process/engine-port-host.ts';

/** The engine end over a Node port (transfers frame buffers, as the renderer end does). */
export function nodePortEndpoint(port: MessagePort): PortEndpoint {
  return {
    post: (data) => (typeof data === 'string' ? port.postMessage(data) : port.postMessage(data, [data.buffer])),
    onMessage: (listener) => port.on('message', listener),
    onClose: (listener) => port.on('close', listener),
    start: () => port.start(),
  };
}

export function nodeChannel(): { uiPort: MessagePort; enginePort: MessagePort; close(): void } {
  const { port1, port2 } = new MessageChannel();
  return { uiPort: port1, enginePort: port2, close: () => port1.close() };
}

/** Resolves when `predicate` holds, polling the event loop (ports deliver asynchronously). */
export async function until(predicate: () => boolean, timeoutMs = 2000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Node's port implements the DOM-style addEventListener('message', e => e.data) at run time, but
 * its typings declare the generic EventTarget signature, hence the cast.
 */
export function asPortLike(port: MessagePort): MessagePortLike {
  return port as unknown as MessagePortLike;
}
