/**
 * The embedding rows of some sequences, for forwards that only look their tokens up.
 *
 *   await embedSequences(ctx, [ids, …]) → one [T·hidden] array per sequence
 *
 * From a source that reads rows (a Checkpoint, Checkpoint.readRowsFloat32; a curvature probe's
 * moved weights) only the rows the tokens use are read: a thousand tokens of a 151,936-row BF16
 * embedding are 2 MB read, where ctx.embedding() widens and keeps the whole 622 MB for the
 * model's lifetime. The values are the same floats either way (the same widening, the same edit
 * per value). Any other source (an edited model, shared-memory tensors: sources that compute or
 * hold the whole tensor they return) is read whole through ctx.embedding(), as before.
 */
import { assertTokenIds, embedTokens, type ModelContext } from './forward.ts';
import { EMBED_NAME, assertShape } from './weights.ts';

export async function embedSequences(ctx: ModelContext, sequences: readonly ArrayLike<number>[]): Promise<Float32Array[]> {
  const { checkpoint: source, spec } = ctx;
  if (sequences.length === 0) return [];
  const readRows = source.readRowsFloat32?.bind(source);
  if (readRows === undefined) {
    const embedding = await ctx.embedding();
    return sequences.map((ids) => embedTokens(embedding, ids, spec.hiddenSize));
  }
  // The shape ctx.embedding() would insist on, so a lookup never runs where a whole read is refused.
  assertShape(source, EMBED_NAME, [spec.vocabSize, spec.hiddenSize]);
  const rows: Float32Array[] = [];
  for (const ids of sequences) {
    assertTokenIds(ids, spec.vocabSize);
    rows.push(await readRows(EMBED_NAME, ids));
  }
  return rows;
}
