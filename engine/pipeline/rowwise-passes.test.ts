/**
 * Directional passes with lm_head's blend Δ formed by rows (ComputedDeltas: rowwise-deltas.ts)
 * against the same passes with it gathered whole beforehand (what the curvature workers shared
 * before, tensorDeltas' own gather), on a real untied pair with think and protected rows
 * (testing/delta-pair.ts): the pass at θ_I (its head dots), and a probe that moves lm_head along
 * both its directions and a layer tensor (its loss, sequence losses and dots), the same bits; so
 * are the probe's moved lm_head read whole and read by rows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LossSequence } from '../model/layer-grads.ts';
import { LM_HEAD_NAME } from '../model/weights.ts';
import { initBackend } from '../tensor/backend.ts';
import { DeltaStore } from './delta-store.ts';
import { ComputedDeltas } from './direction-deltas.ts';
import { DirectionalGradients } from './directional-gradients.ts';
import { writeDeltaPair, type DeltaPair } from './testing/delta-pair.ts';
import { gatheredDeltas } from './testing/gathered-deltas.ts';

let root: string;
let pair: DeltaPair;
beforeAll(async () => {
  await initBackend('wasm');
  root = await mkdtemp(join(tmpdir(), 'crane-rowwise-passes-'));
  pair = await writeDeltaPair(root);
}, 120_000);
afterAll(async () => {
  await pair.instruct.close();
  await pair.thinking.close();
  await rm(root, { recursive: true, force: true });
});

const bits = (values: ArrayLike<number>) => new Uint8Array(Float64Array.from(values).buffer);

describe('passes with lm_head\'s blend Δ formed by rows', () => {
  it('give the gathered Δ\'s loss, sequence losses and dots bit for bit, at θ_I and at a probe that moves lm_head', async () => {
    const vocab = pair.instruct.tensor(LM_HEAD_NAME).shape[0] as number;
    const { think, special } = pair.basis.recipe.tokens;
    // targets on think and protected tokens too, so that the head's label rows include rows the blend leaves alone
    const batch: LossSequence[] = [
      { ids: [1, think[0] ?? 2, 7, vocab - 1, 3, special[0] ?? 4, 9, 11, 5] },
      { ids: [vocab - 2, 6, 6, think.at(-1) ?? 8, 12, 2, vocab - 3] },
    ];
    const rowwise = new DirectionalGradients(pair.instruct, new ComputedDeltas(pair.instruct, pair.thinking, pair.basis, await DeltaStore.open()));
    const gathered = new DirectionalGradients(pair.instruct, gatheredDeltas(pair, pair.basis));
    const directions = pair.basis.directionsOf(LM_HEAD_NAME);
    expect(directions.map((b) => pair.basis.directions[b]?.key)).toEqual(['lm_head.think', 'lm_head.blend']);
    const steps = new Float64Array(pair.basis.directions.length);
    steps[directions[0] as number] = -0.4;
    steps[directions[1] as number] = 0.3;
    steps[pair.basis.directionsOf('model.layers.0.mlp.up_proj.weight')[0] as number] = 0.2;
    for (const weights of [undefined, steps]) {
      const [got, want] = await Promise.all([rowwise, gathered].map((along) => along.pass(weights === undefined ? pair.instruct : along.moved(weights, undefined), batch, 1, undefined)));
      expect(bits(want?.dots ?? [])).not.toEqual(bits(new Float64Array(pair.basis.directions.length)));
      expect(want?.dots[directions[1] as number]).not.toBe(0);
      expect(bits(got?.dots ?? [])).toEqual(bits(want?.dots ?? []));
      expect(bits(got?.sequenceLosses ?? [])).toEqual(bits(want?.sequenceLosses ?? []));
      expect(got?.loss).toBe(want?.loss);
    }
    // the probe's moved lm_head, read whole and by rows (out of order, repeated)
    const [movedRowwise, movedGathered] = [rowwise.moved(steps, undefined), gathered.moved(steps, undefined)];
    const whole = await movedGathered.readFloat32(LM_HEAD_NAME);
    expect(bits(await movedRowwise.readFloat32(LM_HEAD_NAME))).toEqual(bits(whole));
    const ids = [vocab - 1, 3, think[0] ?? 0, 3, 0];
    const rows = (source: typeof movedRowwise) => (source.readRowsFloat32 as NonNullable<typeof source.readRowsFloat32>)(LM_HEAD_NAME, ids);
    expect(bits(await rows(movedRowwise))).toEqual(bits(await rows(movedGathered)));
  }, 120_000);
});
