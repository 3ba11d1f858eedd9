/**
 * LEWIS's per-Linear importance, as the reference's baseline/lewis_importance.py computes it: the
 * Wanda score without pruning, one scalar per transformer-block Linear,
 *
 *   I = sqrt( Σ_i Σ_j W_ij² · E[x_j²] )      W: (out, in), E over every calibration token the Linear read
 *
 *   SquaredInputAccumulator   Σ_tokens x_j² and the token count per module (Wanda's scaler_row)
 *   wandaImportance(weight, shape, meanSquares) → I
 *
 * The mean is over tokens (all prompts pooled), not a mean of per-prompt means as AIM's is: the
 * reference divides one running sum by one running count per module. Modules that read no token
 * (an expert no calibration token was routed to) have no importance: the reference leaves them out
 * of its file rather than write 0, which would distort the schedule's |Δ| normalization.
 */

export class SquaredInputAccumulator {
  private readonly sums = new Map<string, { squares: Float64Array; tokens: number }>();

  /** `sumSquares`: Σ over `tokens` positions of x_j², per input channel j, for one module. */
  add(moduleName: string, sumSquares: ArrayLike<number>, tokens: number): void {
    if (!(Number.isInteger(tokens) && tokens >= 0)) throw new RangeError(`${moduleName}: token count ${tokens} is not a whole number ≥ 0`);
    const entry = this.sums.get(moduleName) ?? { squares: new Float64Array(sumSquares.length), tokens: 0 };
    if (entry.squares.length !== sumSquares.length) {
      throw new RangeError(`${moduleName}: ${sumSquares.length} input channels, earlier batches had ${entry.squares.length}`);
    }
    for (let j = 0; j < sumSquares.length; j++) entry.squares[j] = (entry.squares[j] as number) + (sumSquares[j] as number);
    entry.tokens += tokens;
    this.sums.set(moduleName, entry);
  }

  /** E[x_j²] of each module that read at least one token. */
  meanSquares(): Map<string, Float64Array> {
    const out = new Map<string, Float64Array>();
    for (const [moduleName, { squares, tokens }] of this.sums) {
      if (tokens > 0) out.set(moduleName, squares.map((s) => s / tokens));
    }
    return out;
  }
}

export function wandaImportance(weight: Float32Array, shape: readonly number[], meanSquares: ArrayLike<number>): number {
  const [rows, columns] = shape;
  if (shape.length !== 2 || rows === undefined || columns === undefined || rows * columns !== weight.length) {
    throw new RangeError(`LEWIS importance needs a 2-D Linear weight, got shape [${shape.join(', ')}] for ${weight.length} values`);
  }
  if (meanSquares.length !== columns) throw new RangeError(`LEWIS importance: ${meanSquares.length} input statistics for a weight with ${columns} input channels`);
  let total = 0;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < columns; j++) {
      const w = weight[i * columns + j] as number;
      total += w * w * (meanSquares[j] as number);
    }
  }
  return Math.sqrt(total);
}
