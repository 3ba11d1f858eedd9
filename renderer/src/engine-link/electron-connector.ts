/** Electron: EngineClient over the MessagePort the preload hands to the page (see crane-bridge.ts). */
import { EngineClient, ProtocolError } from '../protocol.ts';
import { ENGINE_PORT_MESSAGE, type CraneBridge } from './crane-bridge.ts';
import type { EngineApi, EngineConnector } from './engine-api.ts';

export function electronConnector(bridge: CraneBridge): EngineConnector {
  return { kind: 'electron', label: 'desktop engine', connect: () => connectPort(bridge) };
}

async function connectPort(bridge: CraneBridge): Promise<EngineApi> {
  const port = await receivePort(bridge);
  const client = new EngineClient((data) => {
    if (typeof data === 'string') port.postMessage(data);
    else port.postMessage(data.buffer, [data.buffer]);
  });
  port.onmessage = ({ data }: MessageEvent<unknown>) => {
    if (typeof data === 'string') client.receive(data);
    else if (data instanceof ArrayBuffer) client.receive(new Uint8Array(data));
    else if (data instanceof Uint8Array) client.receive(data);
  };
  port.start();
  const stop = bridge.onEngineExit(({ reason }) => {
    stop();
    port.close();
    client.close(new ProtocolError('disconnected', `the engine process ended: ${reason}`));
  });
  return client;
}

function receivePort(bridge: CraneBridge): Promise<MessagePort> {
  return new Promise((resolve, reject) => {
    let nonce: string | undefined;
    const early: MessageEvent[] = [];
    const accept = (event: MessageEvent) => {
      const data = event.data as { type?: unknown; nonce?: unknown } | null;
      if (event.source !== window || data?.type !== ENGINE_PORT_MESSAGE || event.ports[0] === undefined) return false;
      if (nonce === undefined) return void early.push(event);
      if (data.nonce !== nonce) return false;
      window.removeEventListener('message', accept);
      resolve(event.ports[0]);
      return true;
    };
    window.addEventListener('message', accept);
    bridge.requestEnginePort().then(
      (answer) => {
        nonce = answer.nonce;
        for (const event of early.splice(0)) accept(event);
      },
      (error: unknown) => {
        window.removeEventListener('message', accept);
        reject(new ProtocolError('disconnected', `no engine port: ${String(error)}`));
      },
    );
  });
}
