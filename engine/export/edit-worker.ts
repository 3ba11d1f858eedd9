/**
 * An export's edit worker: widens each tensor's packed sides, checks, edits and narrows them with
 * editedPayload (the main thread's own function, so the bytes are the same) and hands the result
 * back with the input buffers. Started by edit-worker-pool.ts with an EditWorkerSetup.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { widenInPlace } from '../io/half-float.ts';
import { editedPayload, type ReadSide } from './edited-tensor.ts';
import { toWireError, toWirePayload, type EditJob, type EditWorkerSetup, type FromEditWorker, type PackedSide } from './edit-worker-protocol.ts';
import { methodEdit } from './method-edit.ts';

const port = parentPort;
if (port === null) throw new Error('edit-worker.ts runs only as a worker thread');
const edit = methodEdit((workerData as EditWorkerSetup).method, null, null);

function widened(side: PackedSide | undefined): ReadSide | undefined {
  if (side === undefined) return undefined;
  const values = new Float32Array(side.buffer, 0, side.count);
  return { shape: side.shape, values: side.dtype === 'F32' ? values : widenInPlace(side.dtype, values), file: side.file };
}

port.on('message', (job: EditJob) => {
  const inputs = [job.instruct?.buffer, job.thinking?.buffer].filter((b): b is ArrayBuffer => b !== undefined);
  let reply: FromEditWorker;
  try {
    const ours = (values: Float32Array) => inputs.includes(values.buffer as ArrayBuffer);
    const { payload, note } = editedPayload(job.spec, widened(job.instruct), widened(job.thinking), edit, ours);
    if (!(payload instanceof Float32Array || payload instanceof Uint16Array)) throw new RangeError(`${job.spec.name}: the edit gave ${payload.constructor.name}`);
    reply = { type: 'edited', id: job.id, payload: toWirePayload(payload), ...(note === undefined ? {} : { note }), inputs };
  } catch (error) {
    reply = { type: 'failed', id: job.id, error: toWireError(error), inputs };
  }
  const transfer = new Set<ArrayBuffer>(inputs);
  if (reply.type === 'edited') transfer.add(reply.payload.buffer);
  port.postMessage(reply, [...transfer]);
});
