/**
 * The sequences Verify measures L_R and L_A on, for an analysis and an evaluation set.
 *
 *   verifyBatches(ctx, sequences, evaluation) → { reasoning, agent } loss batches
 *
 * - calibration: the train split — every calibration sequence when nothing is held out, i.e. the
 *   very sequences the gradients (and so the first-order prediction) are about.
 * - held-out: the heldout split. Only the analysis' own share exists; another share would need
 *   other gradients, so it is refused naming both.
 * - files: the evaluation chats answered as the calibration sets are (targets-stage's answerSet:
 *   Thinking decodes D_R, Instruct D_A, through the analysis' decode cache, so a second Verify
 *   decodes nothing). The files are read as they are now; they are no input of the analysis.
 */
import { readChatJsonl } from '../calibration/chat-dataset.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import type { LossSequence } from '../model/layer-grads.ts';
import { describeEvaluation, heldOutShare } from '../protocol/evaluation-set.ts';
import type { EvaluationSet } from '../protocol/settings-schemas.ts';
import { lossBatch, type CalibrationSequence, type Split } from './calibration-sequences.ts';
import { promptRecords } from './calibration-sets.ts';
import { DecodeCache } from './decode-cache.ts';
import type { PipelineContext } from './pipeline-context.ts';
import { answerSet, chatRenderer, type AnsweredSet } from './targets-stage.ts';

export interface VerifyBatches {
  readonly reasoning: LossSequence[];
  readonly agent: LossSequence[];
}

export async function verifyBatches(ctx: PipelineContext, sequences: readonly CalibrationSequence[], evaluation: EvaluationSet): Promise<VerifyBatches> {
  const batches = evaluation.source === 'files' ? await evaluationFiles(ctx, evaluation) : calibrationSplit(ctx, sequences, evaluation);
  for (const set of ['reasoning', 'agent'] as const) {
    if (batches[set].length === 0) {
      const where = evaluation.source === 'files' ? evaluation[set] : ctx.paths.dir;
      throw new CheckpointError('metadata', where, `has no ${set === 'reasoning' ? 'D_R' : 'D_A'} sequences to measure on (${describeEvaluation(evaluation)})`);
    }
  }
  return batches;
}

function calibrationSplit(ctx: PipelineContext, sequences: readonly CalibrationSequence[], evaluation: EvaluationSet): VerifyBatches {
  const analysed = heldOutShare(ctx.settings.analysis.evaluation);
  if (evaluation.source === 'held-out' && evaluation.fraction !== analysed) {
    throw new CheckpointError('metadata', ctx.paths.dir, `held out ${analysed} of the calibration sets from its gradients, not ${evaluation.fraction}: analyze again with that share (Analyze in the studio, or crane analyze --held-out ${evaluation.fraction})`);
  }
  const split: Split = evaluation.source === 'held-out' ? 'heldout' : 'train';
  return { reasoning: lossBatch(sequences, 'reasoning', split), agent: lossBatch(sequences, 'agent', split) };
}

async function evaluationFiles(ctx: PipelineContext, files: Extract<EvaluationSet, { source: 'files' }>): Promise<VerifyBatches> {
  const renderer = await chatRenderer(ctx);
  const cache = await DecodeCache.open(ctx.paths.decodeCache);
  const answered = async (set: AnsweredSet) => {
    const records = promptRecords(await readChatJsonl(files[set]));
    const sequences = await answerSet(ctx, renderer, cache, set, records, { stage: 'verify', onEach: () => undefined });
    return lossBatch(sequences, set, 'train');
  };
  return { reasoning: await answered('reasoning'), agent: await answered('agent') };
}
