/**
 * RAIN stage 2's per-head attention statistics on one instruction prompt (qp_true_forward_fast.py,
 * compute_align_leak_vectors_instruction_wise): how much attention the instruction's own tokens
 * pay to what the instruction is about (alignment a) and to what it is not (leak u).
 *
 *   rainAlignLeak(attention, length, spans) → { alignment, leak } for one head
 *
 * For every instruction k of the prompt, with I_k its prompt-span tokens, R_k its prompt + response
 * span tokens and U_k its unrelated response-span tokens (token index sets, indices ≥ T dropped),
 * and U the prompt's global unrelated tokens:
 *
 *   a = Σ_k  Σ_{i∈I_k, j∈R_k} A[i,j] / max(1, |spans R_k|)
 *   u = Σ_k [Σ_{i∈I_k, j∈U_k} A[i,j] / max(1, |spans U_k|) + Σ_{i∈I_k, j∈U} A[i,j] / max(1, |spans U|)]
 *
 * The divisors count span OCCURRENCES found in the text (before dedup and before the token cut),
 * not tokens — as the reference normalises. A prompt without instructions contributes 0.
 */

export interface RainInstructionSpans {
  /** Token indices of the instruction's prompt spans (I_k), sorted, unique. */
  readonly instruction: readonly number[];
  /** Token indices of its prompt + response spans (R_k). */
  readonly related: readonly number[];
  /** Token indices of its unrelated response spans (U_k). */
  readonly unrelated: readonly number[];
  /** How many span occurrences R_k and U_k were built from. */
  readonly relatedCount: number;
  readonly unrelatedCount: number;
}

export interface RainPromptSpans {
  readonly instructions: readonly RainInstructionSpans[];
  /** The prompt's global unrelated response spans (U), shared by every instruction. */
  readonly globalUnrelated: readonly number[];
  readonly globalUnrelatedCount: number;
}

export interface RainAlignLeak {
  readonly alignment: number;
  readonly leak: number;
}

/** attention: the head's T × T rows, row-major (row i: how position i reads every j). */
export function rainAlignLeak(attention: Float64Array, length: number, spans: RainPromptSpans): RainAlignLeak {
  if (attention.length !== length * length) throw new RangeError(`attention has ${attention.length} values, expected ${length}×${length}`);
  const inside = (indices: readonly number[]) => indices.filter((i) => i >= 0 && i < length);
  const mass = (rows: readonly number[], columns: readonly number[]) => {
    let sum = 0;
    for (const i of rows) for (const j of columns) sum += attention[i * length + j] as number;
    return sum;
  };
  const globalUnrelated = inside(spans.globalUnrelated);
  let alignment = 0;
  let leak = 0;
  for (const instruction of spans.instructions) {
    const rows = inside(instruction.instruction);
    if (rows.length === 0) continue;
    alignment += mass(rows, inside(instruction.related)) / Math.max(1, instruction.relatedCount);
    leak += mass(rows, inside(instruction.unrelated)) / Math.max(1, instruction.unrelatedCount);
    leak += mass(rows, globalUnrelated) / Math.max(1, spans.globalUnrelatedCount);
  }
  return { alignment, leak };
}
