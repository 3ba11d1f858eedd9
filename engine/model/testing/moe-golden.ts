/**
 * The committed per-expert tiny Qwen3-MoE checkpoint and its float64 golden captures, opened once
 * per test file: the MoE tests recompute routing and expert outputs from these rows in plain JS.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Checkpoint } from '../../io/checkpoint.ts';
import { initBackend } from '../../tensor/backend.ts';

const DIR = join(import.meta.dirname, '..', 'testdata', 'qwen3_moe_experts');

export interface MoeGolden {
  readonly sequences: number[][];
  readonly captures: { post_attention_layernorm: number[][][] }[];
}

export const moeGolden = JSON.parse(readFileSync(join(DIR, 'golden.json'), 'utf8')) as MoeGolden;

/** Post-attention-norm rows [token][hidden] of one sequence at one layer, from the float64 reference. */
export const goldenNormRows = (sequence: number, layer: number): number[][] =>
  (moeGolden.captures[sequence] as MoeGolden['captures'][number]).post_attention_layernorm[layer] as number[][];

/** Registers beforeAll/afterAll that open the checkpoint on the wasm backend; call at the top of a test file. */
export function useMoeCheckpoint(): () => Checkpoint {
  let checkpoint: Checkpoint | undefined;
  beforeAll(async () => {
    await initBackend('wasm');
    checkpoint = await Checkpoint.open(DIR);
  });
  afterAll(() => checkpoint?.close());
  return () => {
    if (checkpoint === undefined) throw new Error('the MoE checkpoint is open only inside the test file\'s tests');
    return checkpoint;
  };
}
