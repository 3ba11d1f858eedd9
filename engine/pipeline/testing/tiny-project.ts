/**
 * A tiny sibling pair on disk for pipeline tests: a random Qwen3 (the test tokenizer's vocabulary)
 * as Instruct, the same weights plus seeded noise as Thinking, both with the test tokenizer, and
 * the three calibration JSONL files (one D_R target given, the rest decoded), and an evaluation
 * set for Verify: the calibration set's given D_R chat and its first D_A prompt, so its losses
 * are those of known calibration sequences. The analysis settings are the defaults (every
 * calibration example in the gradients, Verify on the calibration sets).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeTokenizerFiles } from '../../calibration/build-tokenizer.ts';
import { loadTestTokenizer, testTokenizer } from '../../calibration/testing/fixture.ts';
import { Checkpoint } from '../../io/checkpoint.ts';
import { writeSafetensors } from '../../io/safetensors-writer.ts';
import { writeTinyCheckpoint, type TinyModelOptions } from '../../model/testing/tiny-checkpoint.ts';
import { SeededRandom } from '../../protocol/seeded-random.ts';
import { defaultAnalysisSettings, type PipelineSettings } from '../analysis-settings.ts';

const WEATHER_TOOL = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

export const REASONING = [
  { messages: [{ role: 'user', content: 'What is 12 + 30?' }] },
  { messages: [{ role: 'user', content: 'Think step by step: what is 42?' }, { role: 'assistant', content: '<think>\nfirst add the tens\n</think>\n\nIt is 42.' }] },
  { messages: [{ role: 'user', content: 'The weather in Paris?' }] },
  { messages: [{ role: 'user', content: 'Check the answer: 12 + 30.' }] },
];

export const TOOL_USE = [
  { tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'The weather in Rome?' }] },
  { tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'Call get_weather for Paris.' }] },
  { tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'Is it raining in Rome?' }] },
];

export const FORMAT = [
  {
    tools: [WEATHER_TOOL],
    messages: [
      { role: 'user', content: 'The weather in Rome?' },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Rome' } } }] },
      { role: 'tool', content: '{"sky": "sunny"}' },
      { role: 'assistant', content: 'The weather is sunny.' },
    ],
  },
  { messages: [{ role: 'user', content: 'What is 12 + 30?' }, { role: 'assistant', content: 'It is 42.' }] },
];

export interface TinyProject {
  readonly instruct: string;
  readonly thinking: string;
  readonly settings: PipelineSettings;
  /** The evaluation files (not in the settings: the analysis does not need them). */
  readonly evaluation: { readonly reasoning: string; readonly agent: string };
}

const jsonl = (rows: readonly unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

/** Writes the pair and data under `root`; `model` changes both sides' shape (e.g. MoE), `thinkingModel` only the Thinking side's (mismatch tests). */
export async function writeTinyProject(root: string, options: { model?: TinyModelOptions; thinkingModel?: TinyModelOptions; noise?: number } = {}): Promise<TinyProject> {
  const vocab = (await loadTestTokenizer()).vocabSize;
  const instruct = join(root, 'instruct');
  const thinking = join(root, 'thinking');
  await mkdir(instruct, { recursive: true });
  await mkdir(thinking, { recursive: true });
  await writeTinyCheckpoint({ vocab, seed: 7, hidden: 16, intermediate: 24, headDim: 4, ...options.model }, instruct);
  if (options.thinkingModel === undefined) await writeNoisyCopy(instruct, thinking, options.noise ?? 0.05);
  else await writeTinyCheckpoint({ vocab, seed: 8, ...options.thinkingModel }, thinking);
  for (const dir of [instruct, thinking]) await writeTokenizerFiles(dir, await testTokenizer());
  const data = join(root, 'data');
  await mkdir(data, { recursive: true });
  const calibration = { reasoning: join(data, 'reasoning.jsonl'), agent: join(data, 'tool-use.jsonl'), format: join(data, 'format.jsonl') };
  await writeFile(calibration.reasoning, jsonl(REASONING));
  await writeFile(calibration.agent, jsonl(TOOL_USE));
  await writeFile(calibration.format, jsonl(FORMAT));
  const evaluation = { reasoning: join(data, 'eval-reasoning.jsonl'), agent: join(data, 'eval-tool-use.jsonl') };
  await writeFile(evaluation.reasoning, jsonl([REASONING[1]]));
  await writeFile(evaluation.agent, jsonl([TOOL_USE[0]]));
  const defaults = defaultAnalysisSettings(calibration);
  const settings: PipelineSettings = {
    ...defaults,
    batchSequences: 2,
    analysis: { ...defaults.analysis, reasoningMaxNewTokens: 6, agentMaxNewTokens: 5, gsp: { ...defaults.analysis.gsp, maxRank: 8 } },
  };
  return { instruct, thinking, settings, evaluation };
}

/** θ_T = θ_I + noise·N(0, 1), so δ is small and first-order statements mean something (also RAIN's test Base, with another seed). */
export async function writeNoisyCopy(from: string, to: string, noise: number, seed = 99): Promise<void> {
  const source = await Checkpoint.open(from);
  try {
    const rng = new SeededRandom(seed);
    const tensors = [];
    for (const t of source.tensors.values()) {
      const values = await source.readFloat32(t.name);
      const n = rng.normals(values.length, noise);
      tensors.push({ spec: { name: t.name, dtype: 'F32' as const, shape: t.shape }, data: values.map((v, i) => v + (n[i] as number)) });
    }
    await writeSafetensors(join(to, 'model.safetensors'), tensors);
    await writeFile(join(to, 'config.json'), JSON.stringify(source.config, null, 2));
  } finally {
    await source.close();
  }
}
