/** The engine side of the map: one async handler per method, given a per-request context. */
import type { EventName, EventPayload, Params, RequestName, Result } from './methods.ts';

export interface HandlerContext {
  readonly requestId: number;
  /** Aborted by a cancel request, or when the connection closes. Long handlers must watch it. */
  readonly signal: AbortSignal;
  /** Push an event to the connection that made this request (validated before it is sent). */
  readonly emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void;
}

/** `cancel` is answered by the host itself: only it knows which requests are in flight. */
export type HandledMethod = Exclude<RequestName, 'cancel'>;

export type Handler<K extends HandledMethod> = (params: Params<K>, ctx: HandlerContext) => Promise<Result<K>>;

export type Handlers = { readonly [K in HandledMethod]: Handler<K> };
