/**
 * What `demo:train --pair looped` changes from the dense demo pair: where it is written
 * (assets/demo-looped), the model (engine/demo/looped-layout.ts: a NanbeigeForCausalLM whose
 * layers run twice), the tokenizer and chat template (Nanbeige-style: Metaspace + byte fallback,
 * the nanbeige-style template with JSON tool calls), and the phase lengths, sized to stay within
 * 45 min on the 2-core machine shared with seven other jobs (3–8 s a step there at load average
 * 15–16; base 200 steps and fine-tunes 70 each took 20 min). The objective is the dense one:
 * TrainableModel.loss is the whole-model graph, which runs every pass over the same parameters
 * (loop-passes.ts throughPasses), so each weight's gradient is already its sum over the passes.
 */
import { buildNanbeigeStyleTokenizer } from '../../engine/calibration/nanbeige-style-tokenizer.ts';
import type { BuiltTokenizer } from '../../engine/calibration/build-tokenizer.ts';
import { demoPaths } from '../../engine/demo/demo-layout.ts';
import { DEMO_LOOPED_ROOT, demoLoopedModelConfig, loopedDemoChatTemplate } from '../../engine/demo/looped-layout.ts';

/** Control + 256 byte tokens + the corpus's characters (~100) leave about 400 merges. */
const LOOPED_VOCAB_SIZE = 768;

export const loopedDemoTraining = {
  paths: (out?: string) => demoPaths(out ?? DEMO_LOOPED_ROOT),
  modelConfig: demoLoopedModelConfig,
  chatTemplate: loopedDemoChatTemplate,
  templateName: 'nanbeige-style.jinja',
  buildTokenizer: (corpus: string, chatTemplate: string): BuiltTokenizer => buildNanbeigeStyleTokenizer({ corpus, chatTemplate, vocabSize: LOOPED_VOCAB_SIZE }),
  phases: {
    base: { chats: 3600, steps: 200, peakLearningRate: 4e-3, warmupSteps: 20 },
    instruct: { chats: 1000, steps: 70, peakLearningRate: 2e-3, warmupSteps: 8 },
    thinking: { chats: 1000, steps: 70, peakLearningRate: 2e-3, warmupSteps: 8 },
  },
};
