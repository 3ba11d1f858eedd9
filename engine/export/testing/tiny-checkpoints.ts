/**
 * The tiny random pair (engine/crane/testing/tiny-pair.ts) on disk, for export tests: an Instruct
 * and a Thinking checkpoint (F32, Instruct sharded with an index), each with a tensor the other
 * lacks and an integer tensor, Instruct's tokenizer and generation files, and the pair's analysis
 * written with the analysis store.
 */
import { join } from 'node:path';
import { writeAnalysis } from '../../analysis/analysis-store.ts';
import { tinyAnalysis, type TinyAnalysis } from '../../analysis/testing/tiny-analysis.ts';
import { writeFixtureCheckpoint, type FixtureTensor } from '../../io/testing/fixtures.ts';

export const INSTRUCT_ONLY = 'model.layers.0.mlp.extra_instruct';
export const THINKING_ONLY = 'model.layers.1.mlp.extra_thinking';
export const INTEGER_TENSOR = 'model.position_ids';

export interface TinyCheckpoints {
  readonly instruct: string;
  readonly thinking: string;
  readonly analysisDir: string;
  readonly analysis: TinyAnalysis;
}

export async function writeTinyCheckpoints(root: string, options: { seed?: number; poison?: string } = {}): Promise<TinyCheckpoints> {
  const analysis = tinyAnalysis(options.seed ?? 5);
  const side = (which: 'thetaI' | 'thetaT'): FixtureTensor[] => analysis.pair.tensors.map((t) => {
    const data = Float32Array.from(t[which]);
    if (which === 'thetaT' && t.name === options.poison) data[1] = Number.NaN;
    return { spec: { name: t.name, dtype: 'F32', shape: t.shape }, data };
  });
  const integers: FixtureTensor = { spec: { name: INTEGER_TENSOR, dtype: 'I32', shape: [3] }, data: Int32Array.of(0, 1, 2) };
  const extra = (name: string, value: number): FixtureTensor => ({ spec: { name, dtype: 'F32', shape: [2] }, data: Float32Array.of(value, -value) });
  const config = { model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], torch_dtype: 'float32', hidden_size: 4 };
  const instruct = await writeFixtureCheckpoint(join(root, 'instruct'), [...side('thetaI'), integers, extra(INSTRUCT_ONLY, 0.5)], {
    config,
    maxShardBytes: 256,
    sideFiles: { 'tokenizer.json': '{"model":{"vocab":{"a":0}}}', 'generation_config.json': '{"temperature":0.7}' },
  });
  const thinking = await writeFixtureCheckpoint(join(root, 'thinking'), [...side('thetaT'), integers, extra(THINKING_ONLY, 0.25)], { config });
  const analysisDir = join(root, 'analysis');
  await writeAnalysis(analysisDir, analysis, { inputs: {}, settings: null });
  return { instruct, thinking, analysisDir, analysis };
}
