/**
 * LEWIS importance of one model, measured as the reference's baseline/lewis_importance.py: on the
 * prompts AIM reads (aimPrompts: D_R + D_A train prompts up to their first generated token, cut at
 * 512 — lewis_importance.py loads its texts with aim_importance.py's loader), E[x_j²] at every
 * transformer-block Linear's input pooled over all tokens, then sqrt Σ W_ij² E[x_j²] with the
 * model's own weights. Run once on Instruct (the base file) and once on Thinking (the fine-tuned).
 *
 *   measureLewisImportance(model, prompts, options) → module name → importance
 *
 * Differences from the reference, all from the runtime: it runs dense Qwen3/Llama blocks (no MoE
 * experts, so no unrouted-expert omissions arise), in fp32 rather than bf16 activations.
 */
import { SquaredInputAccumulator, wandaImportance } from '../crane/lewis-importance.ts';
import type { CausalLM } from '../model/causal-lm.ts';
import { forEachLinearInputMean, type PromptPassOptions } from './prompt-passes.ts';

export async function measureLewisImportance(model: CausalLM, prompts: readonly number[][], options: PromptPassOptions): Promise<Map<string, number>> {
  const accumulator = new SquaredInputAccumulator();
  await forEachLinearInputMean(model, prompts, options, 'square', 'LEWIS', (m, prompt) => {
    // The mean of x² over this prompt times its length is its sum: prompts pool by token, as Wanda's scaler_row.
    for (const [moduleName, meanSquare] of m.means) accumulator.add(moduleName, Float64Array.from(meanSquare, (v) => v * prompt.length), prompt.length);
  });
  const importance = new Map<string, number>();
  for (const [moduleName, meanSquares] of accumulator.meanSquares()) {
    const weightName = `${moduleName}.weight`;
    const weight = await model.context.checkpoint.readFloat32(weightName);
    importance.set(moduleName, wandaImportance(weight, model.context.checkpoint.tensor(weightName).shape, meanSquares));
  }
  return importance;
}
