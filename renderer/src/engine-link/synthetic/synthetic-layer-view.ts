/** Synthetic side-by-side tensors: small random θ_I/θ_T matrices and the edit a method makes of them. */
import { hashName, SeededRandom, type Block, type LayerView, type MergeMethod, type TensorView } from '../../protocol.ts';

const ROWS = 48;
const COLS = 64;

function histogram(values: Float32Array, bins: number, lo: number, hi: number) {
  const edges = new Float32Array(bins + 1).map((_, i) => lo + ((hi - lo) * i) / bins);
  const counts = new Float32Array(bins);
  for (const v of values) {
    const bin = Math.min(bins - 1, Math.max(0, Math.floor(((v - lo) / (hi - lo)) * bins)));
    counts[bin] = (counts[bin] ?? 0) + 1;
  }
  return { edges, counts };
}

const norm = (values: Float32Array) => Math.sqrt(values.reduce((a, v) => a + v * v, 0));

function downsampleAbs(values: Float32Array, size: number) {
  const rows = Math.min(size, ROWS);
  const cols = Math.min(size, COLS);
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < ROWS; r++)
    for (let c = 0; c < COLS; c++) {
      const i = Math.floor((r * rows) / ROWS) * cols + Math.floor((c * cols) / COLS);
      out[i] = (out[i] ?? 0) + Math.abs(values[r * COLS + c] ?? 0);
    }
  return { rows, cols, values: out };
}

/** Scale of the delta each method applies (a coarse stand-in for the real per-tensor rules). */
function methodScale(method: MergeMethod, gate: number): { scale: number; keep: number; project: boolean } {
  switch (method.method) {
    case 'crane':
      return { scale: method.settings.alpha * gate * (method.settings.stages.threshold ? 1 / (1 - method.settings.keepQuantile) : 1), keep: method.settings.stages.threshold ? 1 - method.settings.keepQuantile : 1, project: method.settings.stages.gsp };
    case 'task_arithmetic':
      return { scale: method.lambda, keep: 1, project: false };
    case 'ties':
      return { scale: method.lambda, keep: method.density, project: false };
    case 'slerp':
      return { scale: method.t, keep: 1, project: false };
    case 'dare':
      return { scale: method.lambda / (1 - method.dropProbability), keep: 1 - method.dropProbability, project: false };
    case 'aim':
      return { scale: method.lambda * (1 - 0.5 * (1 - method.omega)), keep: 1, project: false };
    case 'aim_ties':
      return { scale: method.lambda * (1 - 0.5 * (1 - method.omega)), keep: method.density, project: false };
    case 'lewis':
      return { scale: method.lambda, keep: 0.5 * (method.gamma + method.epsilon), project: false };
    case 'rain':
      // RAIN writes onto Thinking: relative to Instruct the whole δ moves, plus projected attention slices.
      return { scale: 1, keep: 1, project: true };
  }
}

function tensorView(name: string, method: MergeMethod, gate: number, bins: number, mapSize: number, projected: boolean): TensorView {
  const random = new SeededRandom(hashName(name));
  const normal = () => random.normal();
  const instruct = new Float32Array(ROWS * COLS).map(() => 0.05 * normal());
  const delta = new Float32Array(ROWS * COLS).map((_, i) => 0.004 * normal() * (1 + 2 * Math.exp(-(((i % COLS) - 20) ** 2) / 40)));
  const thinking = instruct.map((v, i) => v + (delta[i] ?? 0));
  const { scale, keep, project } = methodScale(method, gate);
  const sorted = delta.map(Math.abs).sort();
  const cut = sorted[Math.floor((1 - keep) * sorted.length)] ?? 0;
  const before = delta.map((d) => (Math.abs(d) >= cut ? scale * d : 0));
  // Format directions of this synthetic layer: input channels 16..24 (removed by the mask).
  const after = before.map((d, i) => (project && projected && i % COLS >= 16 && i % COLS < 24 ? d * 0.05 : d));
  const edited = instruct.map((v, i) => v + (after[i] ?? 0));
  const range = 0.2;
  return {
    name,
    shape: [ROWS, COLS],
    norms: { instruct: norm(instruct), thinking: norm(thinking), edited: norm(edited), delta: norm(delta) },
    values: { instruct: histogram(instruct, bins, -range, range), thinking: histogram(thinking, bins, -range, range), edited: histogram(edited, bins, -range, range) },
    delta: histogram(delta, bins, -0.02, 0.02),
    keptFraction: keep,
    deltaMap: { before: downsampleAbs(before, mapSize), after: downsampleAbs(after, mapSize) },
  };
}

const TENSORS: Record<string, string[]> = {
  attention: ['q_proj', 'k_proj', 'v_proj', 'o_proj'],
  ffn: ['gate_proj', 'up_proj', 'down_proj'],
  expert: ['experts.0.gate_proj', 'experts.0.up_proj', 'experts.0.down_proj'],
};

export function syntheticLayerView(block: Block, method: MergeMethod, gate: number, bins: number, mapSize: number): LayerView {
  const [base = block.group] = block.group.split('.');
  const names = TENSORS[base] ?? [`${block.group}_proj`];
  const prefix = base === 'attention' || ['q', 'k', 'v', 'o'].includes(base) ? 'self_attn' : 'mlp';
  const tensors = names.map((n) => {
    const name = `model.layers.${block.layer}.${prefix}.${n}.weight`;
    return tensorView(name, method, gate, bins, mapSize, !/o_proj|down_proj/.test(n));
  });
  return { block, tensors };
}
