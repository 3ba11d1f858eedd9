import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../tensor/backend.ts';
import { parseModelSpec } from './config.ts';
import { applyRope } from './ops.ts';
import { inverseFrequencies, ropeTables } from './rope.ts';
import { tinyConfig } from './testing/tiny-checkpoint.ts';

describe('rotary embedding', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });

  it('inverse frequencies are theta^(-2i/d)', () => {
    const inv = inverseFrequencies(8, 10000, null);
    expect(Array.from(inv)).toEqual([1, 0.1, 0.01, 0.001].map((v) => Math.fround(v)));
  });

  it('llama3 scaling keeps high frequencies, divides low ones and blends in between', () => {
    const scaling = { factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositions: 8192 };
    const plain = inverseFrequencies(128, 500000, null);
    const scaled = inverseFrequencies(128, 500000, scaling);
    const wavelen = (f: number) => (2 * Math.PI) / f;
    for (let i = 0; i < plain.length; i++) {
      const f = plain[i] as number;
      if (wavelen(f) < 8192 / 4) expect(scaled[i]).toBe(f);
      else if (wavelen(f) > 8192) expect(scaled[i]).toBeCloseTo(f / 8, 12);
      else {
        expect(scaled[i]).toBeGreaterThan(f / 8);
        expect(scaled[i]).toBeLessThan(f);
      }
    }
  });

  it('rotates each half-pair like x·cos + rotate_half(x)·sin', () => {
    const spec = parseModelSpec({ ...tinyConfig({ headDim: 4 }), rope_theta: 100 });
    const x = [[[1, 2, 3, 4]], [[-1, 0.5, 2, -3]], [[0.3, -0.2, 0.1, 0.7]]];
    const tables = ropeTables(spec, 5, 3);
    const got = applyRope(tf.tensor3d(x), tables.cos, tables.sin).arraySync();
    const inv = inverseFrequencies(4, 100, null);
    x.forEach((row, t) => {
      const v = row[0] as number[];
      const ang = Array.from(inv, (f) => Math.fround((5 + t) * f));
      const cos = [...ang, ...ang].map(Math.cos);
      const sin = [...ang, ...ang].map(Math.sin);
      const rot = [-(v[2] as number), -(v[3] as number), v[0] as number, v[1] as number];
      v.forEach((xi, j) => expect(got[t]?.[0]?.[j]).toBeCloseTo(xi * (cos[j] as number) + (rot[j] as number) * (sin[j] as number), 5));
    });
    tf.dispose([tables.cos, tables.sin]);
  });
});
