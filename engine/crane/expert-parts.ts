/**
 * A fused expert tensor seen as the per-expert tensors it stores, so that every CRANE step that
 * works per tensor (T(δ)'s threshold, S per expert, the gate sums, the preview's moments) treats
 * the two expert layouts alike.
 *
 *   expertParts(tensor, shape) → ExpertPart[]     (one whole part for any other tensor)
 *   partOf(values, part) → the part's values      (a view, no copy)
 *
 * Fused layout (transformers v5, engine/model/moe-weights.ts): `mlp.experts.gate_up_proj`
 * [E, 2I, H] holds expert e's gate rows then its up rows; `mlp.experts.down_proj` [E, H, I] holds
 * expert e's down. Each part is contiguous, and classified under the name the per-expert layout
 * gives it (`mlp.experts.{e}.gate_proj.weight`), so its gate block is the expert (`expert.e@l`)
 * and its GSP key the one a per-expert gate/up has. Input dimension last in both layouts, so a
 * part's rows are the same rows the per-expert tensor has.
 */
import { classifyTensor, type TensorClass } from './tensor-classification.ts';

export interface ExpertPart {
  /** The part's class as the per-expert layout names it; the tensor itself for a whole part. */
  readonly tensor: TensorClass;
  /** [out, in] of the per-expert tensor, or the tensor's own shape for a whole part. */
  readonly shape: readonly number[];
  /** First element of the part in the tensor's row-major values, and its element count. */
  readonly offset: number;
  readonly length: number;
}

const FUSED_KEY = /^(.*\.)mlp\.experts\.(gate_up_proj|down_proj)$/;

export function isFusedExpertTensor(tensor: TensorClass): boolean {
  return tensor.group === 'expert' && tensor.expert === null && FUSED_KEY.test(tensor.name);
}

/** The per-expert parts of a fused expert tensor in storage order; any other tensor is one part. */
export function expertParts(tensor: TensorClass, shape: readonly number[]): ExpertPart[] {
  const length = shape.reduce((a, b) => a * b, 1);
  const match = isFusedExpertTensor(tensor) ? FUSED_KEY.exec(tensor.name) : null;
  if (match === null) return [{ tensor, shape, offset: 0, length }];
  const [, prefix, key] = match as unknown as [string, string, string];
  const [experts, rows, columns] = shape as [number, number, number];
  const gateUp = key === 'gate_up_proj';
  if (shape.length !== 3 || (gateUp && rows % 2 !== 0)) {
    throw new RangeError(`${tensor.name}: a fused expert tensor is [experts, ${gateUp ? '2·inner, hidden' : 'hidden, inner'}], not [${shape.join(', ')}]`);
  }
  const projections = gateUp ? ['gate_proj', 'up_proj'] : ['down_proj'];
  const partRows = rows / projections.length;
  const partLength = partRows * columns;
  return Array.from({ length: experts }, (_, e) => projections.map((projection, p) => ({
    tensor: classifyTensor(`${prefix}mlp.experts.${e}.${projection}.weight`),
    shape: [partRows, columns],
    offset: (e * projections.length + p) * partLength,
    length: partLength,
  }))).flat();
}

export function partOf(values: Float32Array, part: ExpertPart): Float32Array {
  if (part.offset === 0 && part.length === values.length) return values;
  return values.subarray(part.offset, part.offset + part.length);
}
