/**
 * format_projectors.pt, the reference pipeline's GSP projector file (src/crane_gsp.py and
 * src/crane_gsp_linattn_inner.py torch.save it, src/crane_merge.py torch.load's it), both ways.
 * The .pt bytes themselves are engine/io/torch-file.ts's business; this file only maps shapes.
 *
 *   projectorsToTorch(projectors) → TorchValue                      { layer_3_attn_input: { V_r, sigma }, … }
 *   projectorsFromTorch(value, file, exactSigma?) → Map<key, GspProjector>
 *
 * V_r is d × r with the directions as columns and σ is descending: the studio's own layout
 * (crane/gsp-projector.ts), so V_r passes as is. Both are written as float32, the reference's
 * dtype; σ is read back as float64 from the stats' exact values when they round to the file's
 * float32 σ (reference-stats.ts says why), else widened from float32 as the reference uses it.
 * Keys are `layer_{l}_attn_input`, `layer_{l}_ffn_input` and, from the linear-attention file,
 * `layer_{l}_linattn_inner`; anything else is refused naming the file and key.
 */
import type { GspProjector } from '../crane/gsp-projector.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { isTorchTensor, type TorchTensor, type TorchValue } from '../io/torch-file.ts';

export const REFERENCE_PROJECTORS_FILE = 'format_projectors.pt';
export const REFERENCE_LINATTN_FILE = 'format_projectors_linattn_inner.pt';

const PROJECTOR_KEY = /^layer_(0|[1-9]\d*)_(attn_input|ffn_input|linattn_inner)$/;

export function projectorsToTorch(projectors: ReadonlyMap<string, GspProjector>): TorchValue {
  const tensor = (shape: number[], values: Float32Array): TorchTensor => ({ kind: 'tensor', dtype: 'F32', shape, values });
  return new Map([...projectors].map(([key, p]): [string, TorchValue] => [key, new Map<string, TorchValue>([
    ['V_r', tensor([p.dim, p.rank], p.basis)],
    ['sigma', tensor([p.rank], Float32Array.from(p.sigma))],
  ])]));
}

export function projectorsFromTorch(value: TorchValue, file: string, exactSigma: ReadonlyMap<string, readonly number[]> = new Map()): Map<string, GspProjector> {
  if (!(value instanceof Map)) throw new CheckpointError('metadata', file, 'is not a dict of projectors ({ "layer_{l}_attn_input": { "V_r", "sigma" } })');
  const projectors = new Map<string, GspProjector>();
  for (const [key, entry] of value) {
    if (!PROJECTOR_KEY.test(key)) throw new CheckpointError('metadata', file, 'is not a projector key (layer_{l}_attn_input, _ffn_input or _linattn_inner)', key);
    if (!(entry instanceof Map)) throw new CheckpointError('metadata', file, 'must be a dict with V_r and sigma', key);
    const basis = tensorAt(entry, 'V_r', 2, file, key);
    const sigma = tensorAt(entry, 'sigma', 1, file, key);
    const [dim, rank] = basis.shape as [number, number];
    if (sigma.shape[0] !== rank) throw new CheckpointError('shape', file, `σ has ${sigma.shape[0]} values for a rank-${rank} V_r`, `${key}.sigma`);
    projectors.set(key, { dim, rank, basis: basis.values, sigma: exactOrWidened(sigma.values, exactSigma.get(key), file, key) });
  }
  return projectors;
}

function tensorAt(entry: ReadonlyMap<string, TorchValue>, name: string, rank: number, file: string, key: string): TorchTensor {
  const value = entry.get(name);
  if (!isTorchTensor(value)) throw new CheckpointError('metadata', file, `has no ${name} tensor`, key);
  if (value.shape.length !== rank) throw new CheckpointError('shape', file, `must be a ${rank}-D tensor, is [${value.shape.join(', ')}]`, `${key}.${name}`);
  if (!value.values.every(Number.isFinite)) throw new CheckpointError('non-finite', file, 'holds NaN or ±Inf', `${key}.${name}`);
  return value;
}

function exactOrWidened(stored: Float32Array, exact: readonly number[] | undefined, file: string, key: string): Float64Array {
  if (exact === undefined) return Float64Array.from(stored);
  if (exact.length !== stored.length || exact.some((s, i) => Math.fround(s) !== stored[i])) {
    throw new CheckpointError('metadata', file, 'σ differs from crane_studio.sigma in the stats file: the two files come from different runs', `${key}.sigma`);
  }
  return Float64Array.from(exact);
}
