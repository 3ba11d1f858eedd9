/**
 * The four message shapes on the wire:
 *   request  {id, method, params}            client → engine
 *   response {id, ok: true, result}          engine → client
 *            {id, ok: false, error}          engine → client
 *   event    {event, payload}                engine → client
 * Envelopes are checked here; params, results and payloads by the method map's schemas.
 */
import { z } from 'zod';
import { requestIdSchema } from './common-schemas.ts';
import { errorInfoSchema, type ErrorInfo } from './errors.ts';

export const requestEnvelopeSchema = z.strictObject({
  id: requestIdSchema,
  method: z.string().max(64),
  params: z.unknown(),
});

export const engineMessageSchema = z.union([
  z.strictObject({ id: requestIdSchema, ok: z.literal(true), result: z.unknown() }),
  z.strictObject({ id: requestIdSchema, ok: z.literal(false), error: errorInfoSchema }),
  z.strictObject({ event: z.string().max(64), payload: z.unknown() }),
]);

export type EngineMessage = z.infer<typeof engineMessageSchema>;

export const okResponse = (id: number, result: unknown): EngineMessage => ({ id, ok: true, result });
export const errorResponse = (id: number, error: ErrorInfo): EngineMessage => ({ id, ok: false, error });
export const eventMessage = (event: string, payload: unknown): EngineMessage => ({ event, payload });

/**
 * The id of a message too large to decode, read from its first bytes, so the caller still gets a
 * 'too-large' reply instead of waiting forever. EngineClient always serialises `id` first.
 */
export function peekRequestId(prefix: string): number | undefined {
  const match = /^\{"id":(\d{1,15})[,}]/.exec(prefix);
  return match === null ? undefined : Number(match[1]);
}
