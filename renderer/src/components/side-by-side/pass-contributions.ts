/**
 * The rows of a pane's per-pass table (getBlockPasses): each tensor of the block, then the block
 * as a whole, with the first-order ΔL_R and ΔL_A of the method's edit through each pass.
 *
 * Σ over passes of a row is the row's whole first-order ΔL (the gradient is the passes' sum), so
 * the shares say which depth the edit acts at, and a row "disagrees" when its passes pull a loss
 * in opposite directions — the edit helps at one depth and hurts at the other, which the combined
 * number hides.
 */
import type { BlockPasses } from '../../store/side-by-side-slice.ts';

export interface PassLoss {
  readonly reasoning: number;
  readonly agent: number;
}

export interface PassRow {
  readonly label: string;
  /** One per pass, in pass order. */
  readonly passes: readonly PassLoss[];
  /** Each pass's share of Σ_pass |ΔL_R| (0 when the row has no reasoning effect). */
  readonly reasoningShare: readonly number[];
  readonly disagrees: { readonly reasoning: boolean; readonly agent: boolean };
}

export function passRows(view: BlockPasses): PassRow[] {
  const tensors = view.tensors.map((t) => row(shortName(t.name), t.passes.map((p) => ({ reasoning: p.lossReasoning, agent: p.lossAgent }))));
  if (tensors.length < 2) return tensors;
  const total = Array.from({ length: view.passes }, (_, pass) => ({
    reasoning: tensors.reduce((sum, t) => sum + (t.passes[pass]?.reasoning ?? 0), 0),
    agent: tensors.reduce((sum, t) => sum + (t.passes[pass]?.agent ?? 0), 0),
  }));
  return [...tensors, row('whole block', total)];
}

/** The largest |ΔL| in the rows: the bars' common scale (1 when everything is 0). */
export function largestLoss(rows: readonly PassRow[]): number {
  const all = rows.flatMap((r) => r.passes.flatMap((p) => [Math.abs(p.reasoning), Math.abs(p.agent)]));
  return Math.max(0, ...all) || 1;
}

function row(label: string, passes: PassLoss[]): PassRow {
  const mass = passes.reduce((sum, p) => sum + Math.abs(p.reasoning), 0);
  return {
    label,
    passes,
    reasoningShare: passes.map((p) => (mass > 0 ? Math.abs(p.reasoning) / mass : 0)),
    disagrees: { reasoning: opposite(passes.map((p) => p.reasoning)), agent: opposite(passes.map((p) => p.agent)) },
  };
}

const opposite = (values: readonly number[]) => values.some((v) => v > 0) && values.some((v) => v < 0);

/** `model.layers.3.mlp.down_proj.weight` → `mlp.down_proj`. */
function shortName(name: string): string {
  return name.replace(/^model\.layers\.\d+\./, '').replace(/\.weight$/, '');
}
