/**
 * The runtime against the independent float64 reference (tools/reference/reference_forward.py)
 * on the committed tiny checkpoints in engine/model/testdata/*: logits, losses, captures, greedy
 * tokens and (qwen3_tied) every parameter gradient. Tolerances are those of tools/reference/README.md.
 *
 * The backend contract: the whole suite runs once on every backend installed (wasm and cpu
 * always; tfjs-node and tfjs-node-gpu where their optional packages are), with the same
 * tolerances. An absent native backend is a skipped test whose name gives the reason.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkpoint } from '../io/checkpoint.ts';
import { SafetensorsFile } from '../io/safetensors-reader.ts';
import { initBackend, installedBackends } from '../tensor/backend.ts';
import { loadCausalLM, type CausalLM } from './causal-lm.ts';

const TESTDATA = join(import.meta.dirname, 'testdata');

interface Golden {
  readonly sequences: number[][];
  readonly logits: number[][][];
  readonly loss: number[];
  readonly target_masks: number[][];
  readonly masked_loss: number[];
  readonly batch_masked_loss: number;
  readonly captures: { input_layernorm: number[][][]; post_attention_layernorm: number[][][] }[];
  readonly greedy: { prompt: number[]; new_tokens: number[] };
  readonly grads_file?: string;
}

const MODELS = existsSync(TESTDATA) ? readdirSync(TESTDATA).filter((d) => existsSync(join(TESTDATA, d, 'golden.json'))) : [];

function maxAbsDiff(got: ArrayLike<number>, want: readonly number[]): number {
  expect(got.length).toBe(want.length);
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs((got[i] as number) - (want[i] as number)));
  return worst;
}

const BACKENDS = installedBackends();
const PRESENT = BACKENDS.filter((b) => b.missing === undefined).map((b) => b.name);

for (const { name, missing } of BACKENDS) {
  if (missing !== undefined) it.skip(`backend ${name}: not run, ${missing}`, () => undefined);
}

describe.each(PRESENT)('backend %s', (backend) => {
  beforeAll(async () => {
    await initBackend(backend);
  });

  describe.runIf(MODELS.length > 0).each(MODELS)('golden reference: %s', (name) => {
    const dir = join(TESTDATA, name);
    const golden = JSON.parse(readFileSync(join(dir, 'golden.json'), 'utf8')) as Golden;
    let checkpoint: Checkpoint;
    let model: CausalLM;

    beforeAll(async () => {
      checkpoint = await Checkpoint.open(dir);
      model = loadCausalLM(checkpoint);
    });

    afterAll(async () => {
      await checkpoint.close();
    });

    it('logits match to 1e-4', async () => {
      let worst = 0;
      for (const [s, ids] of golden.sequences.entries()) {
        const logits = await model.forwardLogits(ids);
        const diff = maxAbsDiff(logits.values, (golden.logits[s] as number[][]).flat());
        expect(diff, `sequence ${s}`).toBeLessThan(1e-4);
        worst = Math.max(worst, diff);
      }
      console.info(`[${backend} ${name}] max |logit − golden| = ${worst.toExponential(2)}`);
    });

    it('unmasked and masked losses match', async () => {
      const plain = await model.sequenceLosses(golden.sequences.map((ids) => ({ ids })));
      plain.forEach((score, s) => expect(Math.abs(score.loss - (golden.loss[s] as number))).toBeLessThan(1e-4));
      const batch = golden.sequences.map((ids, s) => ({ ids, targets: golden.target_masks[s] as number[] }));
      const masked = await model.sequenceLosses(batch);
      masked.forEach((score, s) => expect(Math.abs(score.loss - (golden.masked_loss[s] as number))).toBeLessThan(1e-4));
      const result = await model.lossAndLayerGrads(batch, () => undefined);
      expect(Math.abs(result.loss - golden.batch_masked_loss)).toBeLessThan(1e-4);
    });

    it('captured layernorm outputs match at every position (of every pass, for a looped model)', async () => {
      const sequences = golden.sequences.map((ids) => ({ ids, positions: ids.map((_, i) => i) }));
      let checked = 0;
      await model.captureActivations(sequences, (a) => {
        const want = golden.captures[a.sequence] as Golden['captures'][number];
        // The reference numbers a looped model's layers by effective depth: pass · layers + layer.
        const depth = a.pass * model.spec.numLayers + a.layer;
        expect(maxAbsDiff(a.attnInput, (want.input_layernorm[depth] as number[][]).flat())).toBeLessThan(1e-4);
        expect(maxAbsDiff(a.ffnInput, (want.post_attention_layernorm[depth] as number[][]).flat())).toBeLessThan(1e-4);
        checked++;
      });
      expect(checked).toBe(golden.sequences.length * model.spec.numLayers * (model.spec.loop?.numLoops ?? 1));
    });

    it('greedy tokens match, with and without the KV cache, and eos stopping keeps the prefix', async () => {
      const { prompt, new_tokens: want } = golden.greedy;
      for (const useCache of [true, false]) {
        const { tokens } = await model.greedyDecode(prompt, { maxNewTokens: want.length, stopTokenIds: [], useCache });
        expect(tokens).toEqual(want);
      }
      const stopped = await model.greedyDecode(prompt, { maxNewTokens: want.length });
      const eosAt = want.findIndex((t) => model.spec.eosTokenIds.includes(t));
      expect(stopped.tokens).toEqual(eosAt < 0 ? want : want.slice(0, eosAt + 1));
    });

    it.runIf(golden.grads_file !== undefined)('every parameter gradient matches', async () => {
      const gradsFile = await SafetensorsFile.open(join(dir, golden.grads_file?.split(':')[0] ?? 'grads.safetensors'));
      try {
        const got = new Map<string, Float32Array>();
        const batch = golden.sequences.map((ids, s) => ({ ids, targets: golden.target_masks[s] as number[] }));
        await model.lossAndLayerGrads(batch, (_layer, grads) => void grads.forEach((g, n) => got.set(n, g)), { headGrads: true });
        expect([...got.keys()].sort()).toEqual([...gradsFile.tensors.keys()].sort());
        let worst = 0;
        for (const tensor of gradsFile.tensors.keys()) {
          const want = Array.from(await gradsFile.readFloat32(tensor));
          const scale = Math.max(1, ...want.map(Math.abs));
          const diff = maxAbsDiff(got.get(tensor) as Float32Array, want);
          expect(diff, tensor).toBeLessThan(1e-4 * scale);
          worst = Math.max(worst, diff / scale);
        }
        console.info(`[${backend} ${name}] max |grad − golden| / max(1, max|golden|) over ${got.size} tensors = ${worst.toExponential(2)}`);
      } finally {
        await gradsFile.close();
      }
    });
  });
});
