/**
 * EngineHost: the engine end of one connection, independent of the transport. It decodes and
 * validates every incoming message, dispatches it to the handler map, validates what handlers
 * answer and emit, and turns every failure into a typed reply. Nothing a client sends can make
 * it throw: a bad message costs that message, never the engine.
 */
import { errorResponse, eventMessage, okResponse, peekRequestId, requestEnvelopeSchema, type EngineMessage } from './envelope.ts';
import { describeZodError, ProtocolError } from './errors.ts';
import { decodeMessage, encodeMessage, messagePrefix, wireSize, type EncodedMessage, type WireData } from './frame.ts';
import type { HandlerContext, Handlers } from './handlers.ts';
import { DEFAULT_MAX_MESSAGE_BYTES } from './transport-constants.ts';
import { EVENTS, isRequestName, REQUESTS, type EventName, type EventPayload, type RequestName } from './methods.ts';

export interface EngineHostOptions {
  /** Larger incoming messages are answered 'too-large' without being decoded. */
  readonly maxMessageBytes?: number;
}

interface AcceptedRequest {
  readonly id: number;
  readonly method: RequestName;
  readonly params: unknown;
}

export class EngineHost {
  private readonly inFlight = new Map<number, AbortController>();
  private readonly maxMessageBytes: number;
  private closed = false;

  constructor(
    private readonly handlers: Handlers,
    private readonly send: (data: EncodedMessage) => void,
    options: EngineHostOptions = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  /** Handles one incoming message. Never throws; replies asynchronously. */
  receive(data: WireData): void {
    if (this.closed) return;
    const request = this.accept(data);
    if (request !== undefined) void this.run(request);
  }

  /** Push an event to this connection; the payload is validated first. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    const checked = EVENTS[event].safeParse(payload);
    if (!checked.success) throw new ProtocolError('engine-error', `invalid ${event} event: ${describeZodError(checked.error, 'payload')}`);
    this.post(eventMessage(event, checked.data));
  }

  /** The connection is gone: abort everything still running and send nothing more. */
  close(): void {
    this.closed = true;
    for (const controller of this.inFlight.values()) controller.abort(new ProtocolError('cancelled', 'the connection closed'));
    this.inFlight.clear();
  }

  private accept(data: WireData): AcceptedRequest | undefined {
    const size = wireSize(data);
    if (size > this.maxMessageBytes) {
      const id = peekRequestId(messagePrefix(data));
      return this.fail(id, new ProtocolError('too-large', `message of ${size} bytes exceeds the limit of ${this.maxMessageBytes}`));
    }
    let message: unknown;
    try {
      message = decodeMessage(data);
    } catch (error) {
      return this.fail(undefined, toProtocolError(error));
    }
    const envelope = requestEnvelopeSchema.safeParse(message);
    if (!envelope.success) return this.fail(idOf(message), new ProtocolError('bad-request', describeZodError(envelope.error, 'request')));
    const { id, method, params } = envelope.data;
    if (!isRequestName(method)) return this.fail(id, new ProtocolError('unknown-method', `no method "${method}"`));
    if (this.inFlight.has(id)) return this.fail(id, new ProtocolError('bad-request', `request id ${id} is already in flight`));
    const parsed = REQUESTS[method].params.safeParse(params);
    if (!parsed.success) return this.fail(id, new ProtocolError('invalid-params', `${method}: ${describeZodError(parsed.error, 'params')}`));
    return { id, method, params: parsed.data };
  }

  private async run({ id, method, params }: AcceptedRequest): Promise<void> {
    if (method === 'cancel') {
      this.post(okResponse(id, { cancelled: this.cancel((params as { requestId: number }).requestId) }));
      return;
    }
    const controller = new AbortController();
    this.inFlight.set(id, controller);
    const ctx: HandlerContext = { requestId: id, signal: controller.signal, emit: (event, payload) => this.emit(event, payload) };
    // The params were parsed by this method's own schema, so the handler gets what it declares.
    const handler = this.handlers[method] as (params: unknown, ctx: HandlerContext) => Promise<unknown>;
    try {
      const result = await handler(params, ctx);
      // A handler that finishes after a cancel still ends as cancelled: the caller asked so.
      controller.signal.throwIfAborted();
      const checked = REQUESTS[method].result.safeParse(result);
      if (!checked.success) throw new ProtocolError('engine-error', `${method} produced an invalid result: ${describeZodError(checked.error, 'result')}`);
      this.post(okResponse(id, checked.data));
    } catch (error) {
      this.post(errorResponse(id, controller.signal.aborted ? toProtocolError(controller.signal.reason).toInfo() : toProtocolError(error).toInfo()));
    } finally {
      this.inFlight.delete(id);
    }
  }

  private cancel(requestId: number): boolean {
    const controller = this.inFlight.get(requestId);
    if (controller === undefined || controller.signal.aborted) return false;
    controller.abort(new ProtocolError('cancelled', `request ${requestId} was cancelled`));
    return true;
  }

  /** Answers the request when its id is known; otherwise reports an `error` event. */
  private fail(id: number | undefined, error: ProtocolError): undefined {
    this.post(id === undefined ? eventMessage('error', error.toInfo()) : errorResponse(id, error.toInfo()));
    return undefined;
  }

  private post(message: EngineMessage): void {
    if (this.closed) return;
    try {
      this.send(encodeMessage(message));
    } catch {
      // The transport is closing; its close() follows and ends the requests still running.
    }
  }
}

function toProtocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  return new ProtocolError('engine-error', error instanceof Error ? error.message : String(error));
}

function idOf(message: unknown): number | undefined {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : undefined;
}
