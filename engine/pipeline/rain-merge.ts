/**
 * RAIN end to end on three checkpoints, as rpi-nsl/CRANE's baseline/rain.py runs
 * K1nght/RAIN-Merging: base = the pretrained checkpoint, instruct = the ITM (τ = instruct − base),
 * thinking = the target the merge is written onto (the LRM).
 *
 *   runRainMerge(input) → { tensors, layers, alpha, notes }
 *
 * Stage 1 (rain-projections.ts) projects each q/k/v/o head slice of τ on the last `layersTail`
 * layers onto the null space of the Thinking model's features on the reasoning prompts; stage 2
 * (rain-alpha.ts) picks α per (layer, head) from two attention passes over the instruction
 * prompts; stage 3 writes thinking + α·proj(τ) into those tensors. Every other tensor is
 * Thinking's own (rain.py's merge_types qkvo: the FFN is not merged). The triple is checked first
 * (pair-report.ts with the Base): an error names the config field or the tensors.
 */
import { ChatTemplate } from '../calibration/chat-template.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import type { Checkpoint } from '../io/checkpoint.ts';
import { comparePair } from '../io/pair-report.ts';
import { loadCausalLM } from '../model/causal-lm.ts';
import type { RainSettings } from '../protocol/settings-schemas.ts';
import { loadCheckpointTokenizer } from './checkpoint-tokenizer.ts';
import { computeRainAlpha, rainEditedTensors } from './rain-alpha.ts';
import { readRainInstructionPrompts, readRainReasoningPrompts } from './rain-calibration.ts';
import { computeRainProjections, rainLayers } from './rain-projections.ts';

/** rain.py's --max-samples: reasoning prompts read from the file's start. */
export const RAIN_MAX_REASONING_PROMPTS = 1000;

export interface RainCalibrationFiles {
  /** reasoning_calibration_set.json: the LRM prompts of stage 1. */
  readonly reasoning: string;
  /** instruction_calibration_set.jsonl: the span-annotated prompts of stage 2. */
  readonly instructions: string;
}

export interface RainMergeInput {
  readonly base: Checkpoint;
  readonly instruct: Checkpoint;
  readonly thinking: Checkpoint;
  readonly calibration: RainCalibrationFiles;
  readonly settings: RainSettings;
  readonly onProgress?: (fraction: number, text: string) => void;
}

export interface RainMerge {
  /** The merged q/k/v/o weights of the edited layers; every other tensor is Thinking's. */
  readonly tensors: ReadonlyMap<string, Float32Array>;
  readonly layers: readonly number[];
  /** α of (layers[i], head h) at i·heads + h. */
  readonly alpha: Float64Array;
  readonly notes: readonly string[];
}

export async function assertRainTriple(base: Checkpoint, instruct: Checkpoint, thinking: Checkpoint): Promise<void> {
  const report = await comparePair(instruct, thinking, base);
  const errors = report.findings.filter((f) => f.severity === 'error').map((f) => f.message);
  if (errors.length > 0) throw new CheckpointError('config', base.dir, `cannot serve as RAIN's Base for ${instruct.dir} and ${thinking.dir}:\n  ${errors.join('\n  ')}`);
}

export async function runRainMerge(input: RainMergeInput): Promise<RainMerge> {
  const { base, instruct, thinking, calibration, settings } = input;
  await assertRainTriple(base, instruct, thinking);
  // The reference tokenizes both sets with the target's tokenizer and chat template.
  const tokenizer = await loadCheckpointTokenizer(thinking);
  const template = ChatTemplate.fromTokenizer(tokenizer);
  const reasoning = await readRainReasoningPrompts(calibration.reasoning, tokenizer, template, RAIN_MAX_REASONING_PROMPTS);
  const instructions = await readRainInstructionPrompts(calibration.instructions, tokenizer, template, settings.qpMaxTokens);
  if (instructions.length === 0) throw new CheckpointError('metadata', calibration.instructions, 'holds no instruction prompts: RAIN\'s α needs at least one');
  const notes: string[] = [];
  if (reasoning.skipped > 0) notes.push(`${reasoning.skipped} reasoning prompts skipped (not exactly one <think> and one </think>, or longer than the reference's 7168 tokens)`);
  if (reasoning.prompts.length === 0) notes.push(`no usable reasoning prompt in ${calibration.reasoning}: τ is not projected (no constraints)`);
  const model = loadCausalLM(thinking);
  const layers = rainLayers(model.spec.numLayers, settings.layersTail);
  const stage = (from: number, to: number) => (fraction: number, text: string) => input.onProgress?.(from + (to - from) * fraction, text);
  const projections = await computeRainProjections({
    thinking: model, base, instruct, prompts: reasoning.prompts, layers, settings, onProgress: stage(0, 0.5),
  });
  const { alpha } = await computeRainAlpha({ thinking, projections, prompts: instructions, settings, onProgress: stage(0.5, 1) });
  const tensors = await rainEditedTensors(thinking, projections, (layerIndex, head) => alpha[layerIndex * projections.heads + head] as number);
  return { tensors, layers, alpha, notes };
}
