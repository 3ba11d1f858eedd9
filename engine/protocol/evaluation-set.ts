/**
 * What an analysis' evaluation set (settings-schemas.ts) means, in one place for the pipeline,
 * the CLI and the UI:
 *
 *   heldOutShare(evaluation) → the share of D_R and D_A the gradients leave out (0 unless 'held-out')
 *   describeEvaluation(evaluation) → "eval files r.jsonl + a.jsonl" | "held-out 25% of the calibration sets" | …
 */
import type { EvaluationSet } from './settings-schemas.ts';

export function heldOutShare(evaluation: EvaluationSet): number {
  return evaluation.source === 'held-out' ? evaluation.fraction : 0;
}

/** Where a Verify result was measured, as the UI's "measured on:" and the CLI print it. */
export function describeEvaluation(evaluation: EvaluationSet): string {
  switch (evaluation.source) {
    case 'files':
      return `eval files ${fileName(evaluation.reasoning)} + ${fileName(evaluation.agent)}`;
    case 'held-out':
      return `held-out ${formatShare(evaluation.fraction)} of the calibration sets`;
    case 'calibration':
      return 'the calibration sets themselves (the sequences the gradients used)';
  }
}

function fileName(path: string): string {
  return path.split(/[\\/]/).filter((part) => part !== '').pop() ?? path;
}

function formatShare(fraction: number): string {
  return `${Number((fraction * 100).toFixed(1))}%`;
}
