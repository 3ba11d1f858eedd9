/**
 * EngineClient: the UI end of one connection, typed by the protocol map and independent of the
 * transport (WebSocket in browser mode, MessagePort in Electron). It validates params before
 * sending and results and events on arrival, so a renderer never sees an unchecked value.
 * No Node imports: this file is bundled into the renderer.
 */
import { engineMessageSchema } from './envelope.ts';
import { describeZodError, ProtocolError } from './errors.ts';
import { decodeMessage, encodeMessage, wireSize, type EncodedMessage, type WireData } from './frame.ts';
import { DEFAULT_MAX_MESSAGE_BYTES } from './transport-constants.ts';
import { EVENTS, isEventName, REQUESTS, type EventName, type EventPayload, type Params, type RequestName, type Result } from './methods.ts';

export interface CallOptions {
  /** Aborting rejects the call with 'cancelled' at once and asks the engine to stop the work. */
  readonly signal?: AbortSignal;
}

interface Pending {
  readonly method: RequestName;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: ProtocolError) => void;
  readonly cleanup: () => void;
}

type Listener = (payload: never) => void;

export class EngineClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<EventName, Set<Listener>>();
  private readonly closeListeners = new Set<(reason: ProtocolError) => void>();
  private closedWith: ProtocolError | undefined;

  constructor(
    private readonly send: (data: EncodedMessage) => void,
    private readonly maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
  ) {}

  call<K extends RequestName>(method: K, params: Params<K>, options: CallOptions = {}): Promise<Result<K>> {
    return new Promise<Result<K>>((resolve, reject) => {
      const { signal } = options;
      if (this.closedWith !== undefined) return reject(this.closedWith);
      if (signal?.aborted === true) return reject(new ProtocolError('cancelled', `${method} was cancelled before it was sent`));
      const checked = REQUESTS[method].params.safeParse(params);
      if (!checked.success) return reject(new ProtocolError('invalid-params', `${method}: ${describeZodError(checked.error, 'params')}`));
      const id = this.nextId++;
      // `id` first: a host that refuses an oversized message still reads it from the prefix.
      const data = encodeMessage({ id, method, params: checked.data });
      if (wireSize(data) > this.maxMessageBytes) return reject(new ProtocolError('too-large', `${method} message of ${wireSize(data)} bytes exceeds the limit`));
      const onAbort = () => {
        this.settle(id)?.reject(new ProtocolError('cancelled', `${method} was cancelled`));
        if (method !== 'cancel') this.call('cancel', { requestId: id }).catch(() => undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, { method, resolve: resolve as (result: unknown) => void, reject, cleanup });
      try {
        this.send(data);
      } catch (error) {
        this.settle(id)?.reject(new ProtocolError('disconnected', `could not send ${method}: ${(error as Error).message}`));
      }
    });
  }

  /** Subscribe to a push event; returns the unsubscribe function. */
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
    const set = this.listeners.get(event) ?? new Set<Listener>();
    this.listeners.set(event, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Called once when the connection ends (the engine process died, the socket closed). */
  onClose(listener: (reason: ProtocolError) => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** For the transport: one message from the engine. Never throws. */
  receive(data: WireData): void {
    let message: unknown;
    try {
      message = decodeMessage(data);
    } catch (error) {
      return this.reportInvalid((error as Error).message);
    }
    const envelope = engineMessageSchema.safeParse(message);
    if (!envelope.success) return this.reportInvalid(describeZodError(envelope.error, 'message'));
    const value = envelope.data;
    if ('event' in value) return this.dispatch(value.event, value.payload);
    const pending = this.settle(value.id);
    // No pending entry: the call was cancelled locally and this is the engine's late answer.
    if (pending === undefined) return;
    if (!value.ok) return pending.reject(ProtocolError.fromInfo(value.error));
    const result = REQUESTS[pending.method].result.safeParse(value.result);
    if (result.success) pending.resolve(result.data);
    else pending.reject(new ProtocolError('bad-response', `${pending.method}: ${describeZodError(result.error, 'result')}`));
  }

  /** For the transport: the connection ended. Pending calls reject with `reason`. */
  close(reason = new ProtocolError('disconnected', 'the engine connection closed')): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = reason;
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(reason);
    for (const listener of this.closeListeners) listener(reason);
  }

  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    if (pending === undefined) return undefined;
    this.pending.delete(id);
    pending.cleanup();
    return pending;
  }

  private dispatch(event: string, payload: unknown): void {
    if (!isEventName(event)) return this.reportInvalid(`unknown event "${event}"`);
    const checked = EVENTS[event].safeParse(payload);
    if (!checked.success) return this.reportInvalid(`${event}: ${describeZodError(checked.error, 'payload')}`);
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        (listener as (payload: unknown) => void)(checked.data);
      } catch (error) {
        // One faulty listener must not starve the others; rethrown so it still reaches the console.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** An engine message that fails validation answers nothing, so it surfaces as an `error` event. */
  private reportInvalid(message: string): void {
    this.dispatch('error', new ProtocolError('bad-response', message).toInfo());
  }
}
