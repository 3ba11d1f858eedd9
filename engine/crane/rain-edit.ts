/**
 * RAIN stage 3 for one attention projection tensor: merged = thinking + Σ_h α_h · proj_h(τ_h).
 *
 *   rainTaskSlice(tensor, head)         → head h's slice of τ = instruct − base (d_model × head_dim)
 *   applyRainSlices(tensor, edits)      → merged weights (Float32Array, the tensor's row-major layout)
 *
 * Head h's slice of τ is taken as the reference takes it (task_vectors_single_layer_unified):
 *   q:    rows h·hD … (h+1)·hD of q_proj, transposed
 *   k, v: rows kv·hD … (kv+1)·hD of k_proj / v_proj, transposed, with kv = h mod kvHeads
 *   o:    columns h·hD … (h+1)·hD of o_proj
 * Each slice is projected onto its head's constraint null space (rain-projection.ts) between the
 * two calls, then scaled by the head's α and added back to the thinking checkpoint in the same
 * place. As in the reference, K and V are edited once per QUERY head: with grouped-query
 * attention every query head that maps to a kv head adds its own projected copy of that kv
 * head's slice. Heads without an edit keep the thinking weights. The two halves are apart because
 * the α pass applies the same projected slices at the prior α before the QP picks α*.
 */

export type RainProjectionKind = 'q' | 'k' | 'v' | 'o';

export interface RainTensor {
  readonly kind: RainProjectionKind;
  readonly name: string;
  readonly shape: readonly [number, number];
  readonly headDim: number;
  readonly kvHeads: number;
}

export interface RainHeadSlice {
  readonly head: number;
  readonly alpha: number;
  /** d_model × head_dim row-major: the head's projected τ slice. */
  readonly slice: Float64Array;
}

export function rainTaskSlice(tensor: RainTensor, base: Float32Array, instruct: Float32Array, head: number): Float64Array {
  checkSize(tensor, [['base', base], ['instruct', instruct]]);
  const { dModel, headDim, at } = headLayout(tensor, head);
  const slice = new Float64Array(dModel * headDim);
  for (let a = 0; a < dModel; a++) {
    for (let b = 0; b < headDim; b++) {
      const k = at(a, b);
      slice[a * headDim + b] = (instruct[k] as number) - (base[k] as number);
    }
  }
  return slice;
}

export function applyRainSlices(tensor: RainTensor, thinking: Float32Array, edits: readonly RainHeadSlice[]): Float32Array {
  checkSize(tensor, [['thinking', thinking]]);
  const merged = Float64Array.from(thinking);
  for (const edit of edits) {
    const { dModel, headDim, at } = headLayout(tensor, edit.head);
    if (edit.slice.length !== dModel * headDim) throw new RangeError(`${tensor.name}: head ${edit.head}'s slice has ${edit.slice.length} values, expected ${dModel}×${headDim}`);
    for (let a = 0; a < dModel; a++) {
      for (let b = 0; b < headDim; b++) {
        const k = at(a, b);
        merged[k] = (merged[k] as number) + edit.alpha * (edit.slice[a * headDim + b] as number);
      }
    }
  }
  return Float32Array.from(merged);
}

/** Where slice entry (a over d_model, b over the head's dims) lives in the weight. */
function headLayout(tensor: RainTensor, head: number): { dModel: number; headDim: number; at: (a: number, b: number) => number } {
  const { kind, name, shape: [rows, cols], headDim, kvHeads } = tensor;
  const dModel = kind === 'o' ? rows : cols;
  const blockWidth = kind === 'o' ? cols : rows;
  const block = kind === 'k' || kind === 'v' ? head % kvHeads : head;
  const start = block * headDim;
  if (start + headDim > blockWidth) throw new RangeError(`${name}: head ${head} (block ${block}) lies outside ${rows}×${cols}`);
  const at = kind === 'o' ? (a: number, b: number) => a * cols + start + b : (a: number, b: number) => (start + b) * cols + a;
  return { dModel, headDim, at };
}

function checkSize(tensor: RainTensor, sides: readonly (readonly [string, Float32Array])[]): void {
  const [rows, cols] = tensor.shape;
  for (const [label, values] of sides) {
    if (values.length !== rows * cols) throw new RangeError(`${tensor.name}: ${label} has ${values.length} values, expected ${rows}×${cols}`);
  }
}
