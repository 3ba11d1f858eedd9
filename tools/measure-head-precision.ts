/**
 * Precision of the runtime's head/cross-entropy gradient against the float64 formulation
 * (engine/model/testing/head-reference.ts), printed as relative errors ‖got − ref‖ / ‖ref‖:
 *
 *   1. the demo pair's g_A: the runtime's lossAndLayerGrads over the agent sequences of an
 *      analysis export, against the same layer-wise backward fed with the float64 head gradient
 *      (so the difference is the head's own error, as it reaches every layer);
 *   2. a synthetic Qwen3 head with the real 151,936-token vocab (hidden 64, one layer, untied),
 *      where each target's logit dominates the row: lm_head, model.norm and the layer gradients.
 *
 * (engine/model/testdata/demo-agent-sequences.jsonl holds the demo pair's agent sequences.)
 * --dump-grads also writes the runtime's layer gradients of those sequences, which
 * tools/reference/fd_gradients.py checks against float64 finite differences of the whole model.
 *
 * The backend is CRANE_BACKEND (default wasm).
 */
import { readFile } from 'node:fs/promises';
import { Checkpoint } from '../engine/io/checkpoint.ts';
import { writeSafetensors } from '../engine/io/safetensors-writer.ts';
import type { TensorSpec } from '../engine/io/tensor-encoding.ts';
import { loadCausalLM } from '../engine/model/causal-lm.ts';
import type { LossSequence } from '../engine/model/layer-grads.ts';
import type { WeightSource } from '../engine/model/weights.ts';
import { dominantHeadModel } from '../engine/model/testing/dominant-head.ts';
import { headPrecision } from '../engine/model/testing/head-precision.ts';
import { initBackend, parseBackendName } from '../engine/tensor/backend.ts';
import { parseCli } from './cli-args.ts';

async function demo(sequencesFile: string, modelDir: string, dumpFile?: string): Promise<void> {
  const lines = (await readFile(sequencesFile, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const batch = lines
    .map((l) => JSON.parse(l) as { set: string; ids: number[]; lossMask?: number[] })
    .filter((s) => s.set === 'agent')
    .map((s) => ({ ids: s.ids, targets: s.lossMask ?? [] }));
  const checkpoint = await Checkpoint.open(modelDir);
  try {
    const c = await headPrecision(checkpoint, batch, false);
    if (dumpFile !== undefined) await dumpLayerGrads(checkpoint, batch, dumpFile);
    console.log(`demo pair ${modelDir}, ${batch.length} agent sequences: g_A rel err ${c.layers.toExponential(2)}, |loss − ref| ${c.loss.toExponential(2)}`);
  } finally {
    await checkpoint.close();
  }
}

/** The runtime's decoder-layer gradients of `batch`, for tools/reference/fd_gradients.py. */
async function dumpLayerGrads(source: WeightSource, batch: readonly LossSequence[], file: string): Promise<void> {
  const tensors: { spec: TensorSpec; data: Float32Array }[] = [];
  await loadCausalLM(source).lossAndLayerGrads(batch, (_layer, grads) => {
    for (const [name, data] of grads) tensors.push({ spec: { name, dtype: 'F32', shape: [...source.tensor(name).shape] }, data });
  });
  await writeSafetensors(file, tensors);
  console.log(`wrote ${tensors.length} layer gradients to ${file}`);
}

async function synthetic(): Promise<void> {
  const vocab = 151_936;
  const model = await dominantHeadModel({ vocab, hidden: 64, tokens: 6, margin: 20, seed: 5 });
  try {
    const c = await headPrecision(model.source, model.batch, true);
    console.log(`synthetic head V=${vocab}, hidden 64, 5 targets (logit margin ≈ 20): layers rel err ${c.layers.toExponential(2)}, model.norm ${c.norm?.toExponential(2)}, lm_head ${c.lmHead?.toExponential(2)}, |loss − ref| ${c.loss.toExponential(2)}`);
  } finally {
    await model.close();
  }
}

const { values } = parseCli({
  usage: ['node --import tsx tools/measure-head-precision.ts [--sequences EXPORT/calibration-sequences.jsonl] [--model assets/demo/instruct] [--dump-grads G.safetensors]'],
  about: 'Without --sequences only the synthetic 151,936-token head (2.) is measured. The backend is CRANE_BACKEND (default wasm).',
  options: {
    sequences: { type: 'string', value: 'FILE', help: "an analysis export's calibration-sequences.jsonl: measure the demo pair's g_A on its agent sequences" },
    model: { type: 'string', value: 'DIR', default: 'assets/demo/instruct', help: 'with --sequences: the checkpoint those sequences run through' },
    'dump-grads': { type: 'string', value: 'FILE', help: "with --sequences: also write the runtime's layer gradients (for tools/reference/fd_gradients.py)" },
  },
});
const backend = await initBackend(parseBackendName(process.env['CRANE_BACKEND'] ?? 'wasm', 'CRANE_BACKEND'));
console.log(`backend ${backend.name}`);
if (values.sequences !== undefined) await demo(values.sequences, values.model, values['dump-grads']);
await synthetic();
