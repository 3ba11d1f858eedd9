/**
 * An independent float64 formulation of the output head and its cross-entropy gradient, in plain
 * loops (no tfjs, no chunking, no online softmax): the reference the engine's float32 head is
 * measured against. Rows are the positions that predict a target; `weights[r]` multiplies row
 * r's CE in the objective (1 / (sequenceCount · targets of its sequence) for the runtime's loss).
 *
 *   RMSNorm:  n = x / sqrt(mean(x²) + eps),  h = n ⊙ w
 *   logits:   z_j = Σ_k h_k W[j, k]            (W as stored, [vocab, hidden])
 *   CE:       log Σ_j exp(z_j − max z) + max z − z_label
 *   dz_j = weight · p_j (j ≠ label),  dz_label = −weight · Σ_{j≠label} p_j   (no 1 − p cancellation)
 */
export interface HeadReferenceInput {
  /** Final hidden states of the rows, [rows · hidden]. */
  readonly hidden: ArrayLike<number>;
  /** model.norm.weight, [hidden]. */
  readonly norm: ArrayLike<number>;
  /** lm_head (or the tied embedding) as stored, [vocab · hidden]. */
  readonly head: ArrayLike<number>;
  readonly labels: readonly number[];
  readonly weights: readonly number[];
  readonly eps: number;
}

export interface HeadReference {
  /** Unweighted CE of each row. */
  readonly losses: Float64Array;
  /** d objective / d hidden, [rows · hidden]. */
  readonly dHidden: Float64Array;
  readonly dNorm: Float64Array;
  /** d objective / d head, stored layout [vocab · hidden]. */
  readonly dHead: Float64Array;
}

export function headReference(input: HeadReferenceInput): HeadReference {
  const width = input.norm.length;
  const rows = input.labels.length;
  const vocab = input.head.length / width;
  const losses = new Float64Array(rows);
  const dHidden = new Float64Array(rows * width);
  const dNorm = new Float64Array(width);
  const dHead = new Float64Array(vocab * width);
  const z = new Float64Array(vocab);
  for (let r = 0; r < rows; r++) {
    const x = Array.from({ length: width }, (_, k) => input.hidden[r * width + k] as number);
    const inv = 1 / Math.sqrt(x.reduce((s, v) => s + v * v, 0) / width + input.eps);
    const h = x.map((v, k) => v * inv * (input.norm[k] as number));
    let max = -Infinity;
    for (let j = 0; j < vocab; j++) {
      let dot = 0;
      for (let k = 0; k < width; k++) dot += (h[k] as number) * (input.head[j * width + k] as number);
      z[j] = dot;
      max = Math.max(max, dot);
    }
    const label = input.labels[r] as number;
    let sum = 0;
    for (let j = 0; j < vocab; j++) sum += Math.exp((z[j] as number) - max);
    losses[r] = Math.log(sum) + max - (z[label] as number);
    const weight = input.weights[r] as number;
    const dh = new Float64Array(width);
    let others = 0;
    for (let j = 0; j < vocab; j++) {
      if (j === label) continue;
      const p = Math.exp((z[j] as number) - max) / sum;
      others += p;
      addScaledRow(dh, dHead, j, weight * p, h, input.head);
    }
    addScaledRow(dh, dHead, label, -weight * others, h, input.head);
    // RMSNorm backward: h = w ⊙ x · inv, inv = (mean(x²) + eps)^(-1/2).
    let dot = 0;
    for (let k = 0; k < width; k++) {
      const dn = (dh[k] as number) * (input.norm[k] as number);
      dNorm[k] = (dNorm[k] as number) + (dh[k] as number) * (x[k] as number) * inv;
      dot += dn * (x[k] as number);
    }
    for (let k = 0; k < width; k++) {
      const dn = (dh[k] as number) * (input.norm[k] as number);
      dHidden[r * width + k] = inv * dn - ((x[k] as number) * inv ** 3 * dot) / width;
    }
  }
  return { losses, dHidden, dNorm, dHead };
}

/** dh += g · W[j, :] and dW[j, :] += g · h for logit j with gradient g. */
function addScaledRow(dh: Float64Array, dHead: Float64Array, j: number, g: number, h: readonly number[], head: ArrayLike<number>): void {
  const width = dh.length;
  for (let k = 0; k < width; k++) {
    dh[k] = (dh[k] as number) + g * (head[j * width + k] as number);
    dHead[j * width + k] = (dHead[j * width + k] as number) + g * (h[k] as number);
  }
}
