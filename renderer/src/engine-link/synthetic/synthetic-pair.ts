/** The compatibility report the synthetic engine gives for any two paths. */
import type { PairSummary } from '../../protocol.ts';
import type { SyntheticShape } from './synthetic-model.ts';

export function syntheticPair(instruct: string, thinking: string, shape: SyntheticShape): PairSummary {
  const perLayer = shape.experts > 0 ? 9 + 3 * shape.experts : 11;
  const tensorCount = shape.layers * perLayer + 3;
  const summary = (dir: string) => ({
    dir,
    modelType: shape.experts > 0 ? 'qwen3_moe' : 'qwen3',
    architectures: [shape.experts > 0 ? 'Qwen3MoeForCausalLM' : 'Qwen3ForCausalLM'],
    layers: shape.layers,
    totalBytes: tensorCount * 2 * 1024 * 1024,
    tensorCount,
    shards: ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors'],
    sideFiles: ['config.json', 'tokenizer.json', 'tokenizer_config.json'],
  });
  return {
    instruct: summary(instruct),
    thinking: summary(thinking),
    report: {
      compatible: true,
      verdict: 'compatible',
      sharedTensors: tensorCount,
      onlyInInstruct: [],
      onlyInThinking: [],
      shapeMismatches: [],
      dtypeMismatches: [],
      findings: [{ severity: 'info', code: 'synthetic', message: 'Synthetic engine: no files were read; every number in this session is made up.' }],
      // Qwen3's layout: the added tokens 151643–151666 protected, <think>/</think> at 151667/151668.
      tokens: { think: [151667, 151668], special: Array.from({ length: 24 }, (_, i) => 151643 + i) },
    },
  };
}
