/**
 * Engine failures as the protocol's typed errors, in one place for every handler: a cancelled
 * job is 'cancelled' whatever the layer that noticed it threw (the pipeline's CancelledError,
 * the writer's "export cancelled", the runtime's AbortError), missing files are 'not-found', an
 * existing output 'already-exists', failed reads and writes 'io-error', bad checkpoints
 * 'invalid-checkpoint' (checkpoint-views.ts), unusable calibration data 'invalid-params'. Anything else
 * reaches the host, which answers 'engine-error' with its message.
 */
import { CalibrationError } from '../calibration/calibration-error.ts';
import { CancelledError } from '../pipeline/progress.ts';
import { ProtocolError } from '../protocol/errors.ts';
import { toProtocolError } from './checkpoint-views.ts';

export function asProtocolError(error: unknown, signal?: AbortSignal): unknown {
  if (error instanceof ProtocolError) return error;
  if (error instanceof CancelledError || signal?.aborted === true) {
    return new ProtocolError('cancelled', error instanceof Error ? error.message : 'cancelled');
  }
  if (error instanceof CalibrationError) return new ProtocolError(error.code === 'not-found' ? 'not-found' : 'invalid-params', error.message);
  return toProtocolError(error);
}

/** Runs a handler body and converts whatever it throws. */
export async function guarded<T>(body: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw asProtocolError(error, signal);
  }
}
