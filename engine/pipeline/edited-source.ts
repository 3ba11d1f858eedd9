/**
 * The edited model as a WeightSource, computed tensor by tensor when the runtime reads it.
 *
 *   editedWeightSource(instruct, thinking, edit) → WeightSource (+ notes)
 *
 * Why not a temporary checkpoint: the runtime already reads weights one tensor at a time, so
 * editing at read time costs no disk, holds one tensor pair at a time (memory ≈ a layer, as for
 * θ_I itself) and is bit-identical to what export writes in F32 — both go through editPair with
 * the same PairedEdit, handed both sides' arrays to overwrite (they are read for that one call). The price is recomputing an edit each time a pass reads the tensor; a
 * verify makes two or three passes, and an edit is cheap next to the layer's forward.
 * Only tensors the Instruct side has are visible: the runtime's parameter names come from
 * Instruct's config, and editPair keeps θ_I where the sides' shapes differ.
 *
 *   cancellableSource(weights, signal, stage) → WeightSource   throws CancelledError(stage) at the next read once aborted
 *
 * The runtime reads a layer's weights as it reaches the layer (forward and backward), so a pass
 * over a cancellable source stops within a layer of the abort, whatever the pass is.
 */
import { editPair, type PairedEdit } from '../crane/tensor-pair.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import type { WeightSource } from '../model/weights.ts';
import { throwIfCancelled } from './progress.ts';

export interface EditedSource extends WeightSource {
  /** Notes from editPair (skipped projections, shape mismatches), once per tensor. */
  readonly notes: ReadonlyMap<string, string>;
}

export function editedWeightSource(instruct: Checkpoint, thinking: Checkpoint, edit: PairedEdit): EditedSource {
  const notes = new Map<string, string>();
  return {
    dir: instruct.dir,
    config: instruct.config,
    tensors: instruct.tensors,
    tensor: (name) => instruct.tensor(name),
    notes,
    readFloat32: async (name) => {
      const info = instruct.tensor(name);
      const side = thinking.tensors.get(name);
      // Both sides are fresh reads for this call alone, handed over: the edit writes into them instead of
      // allocating a tensor-sized result (a 151,936-row embedding or lm_head: 622 MB less at the peak).
      const result = editPair({
        name,
        instruct: { shape: info.shape, values: await instruct.readFloat32(name) },
        ...(side === undefined ? {} : { thinking: { shape: side.shape, values: await thinking.readFloat32(name) } }),
      }, edit, true);
      if (result.note !== undefined) notes.set(name, result.note);
      return result.values;
    },
  };
}

export function cancellableSource(weights: WeightSource, signal: AbortSignal | undefined, stage: string): WeightSource {
  if (signal === undefined) return weights;
  const readRows = weights.readRowsFloat32?.bind(weights);
  return {
    dir: weights.dir,
    config: weights.config,
    tensors: weights.tensors,
    tensor: (name) => weights.tensor(name),
    readFloat32: async (name, into) => {
      throwIfCancelled(signal, stage);
      return weights.readFloat32(name, into);
    },
    // kept where the source has it: the embedding lookup then reads rows only (model/embedding-rows.ts)
    ...(readRows === undefined ? {} : {
      readRowsFloat32: async (name: string, rows: ArrayLike<number>) => {
        throwIfCancelled(signal, stage);
        return readRows(name, rows);
      },
    }),
  };
}
