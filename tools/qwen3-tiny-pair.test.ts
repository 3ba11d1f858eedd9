/**
 * The tiny Qwen3 pair with the real tokenizer and vocabulary: `crane inspect` reports the
 * reference's protected rows, and `crane merge` keeps exactly those lm_head rows (the tool-call
 * ones included, which Qwen's tokenizer.json marks `special: false`) at θ_I, with the user's edits.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../engine/cli/testing.ts';
import { Checkpoint } from '../engine/io/checkpoint.ts';
import { withTempDir } from '../engine/io/testing/fixtures.ts';

const HIDDEN = 8;
const row = (values: Float32Array, id: number) => Array.from(values.subarray(id * HIDDEN, (id + 1) * HIDDEN));

async function lmHead(dir: string): Promise<Float32Array> {
  const checkpoint = await Checkpoint.open(dir);
  try {
    return await checkpoint.readFloat32('lm_head.weight');
  } finally {
    await checkpoint.close();
  }
}

describe('tools/qwen3-tiny-pair.ts', () => {
  it('writes a pair crane inspects and merges with the reference\'s protected rows and the user\'s edits', async () => {
    await withTempDir(async (root) => {
      execFileSync(process.execPath, ['--import', 'tsx', 'tools/qwen3-tiny-pair.ts', '--out', root, '--layers', '1', '--hidden', String(HIDDEN)], { stdio: 'pipe' });
      const [instruct, thinking, merged] = ['instruct', 'thinking', 'merged'].map((name) => join(root, name)) as [string, string, string];

      const inspect = await runCli(['inspect', instruct, thinking]);
      expect(inspect.code).toBe(0);
      expect(inspect.out).toContain('Protected 24 lm_head rows kept at θ_I: 151643–151666');

      const merge = await runCli(['merge', instruct, thinking, '--out', merged, '--no-gate', '--no-gsp', '--protect-ids', '+151669,-151650', '--dtype', 'f32']);
      expect(merge.err).toBe('');
      expect(merge.code).toBe(0);
      const [thetaI, thetaT, thetaM] = [await lmHead(instruct), await lmHead(thinking), await lmHead(merged)];
      expect(thetaM.length).toBe(151_936 * HIDDEN);
      const kept = [...Array.from({ length: 24 }, (_, i) => 151643 + i).filter((id) => id !== 151650), 151669];
      for (const id of kept) expect(row(thetaM, id)).toEqual(row(thetaI, id));
      // Released, the think pair and an ordinary token all move (θ_T differs from θ_I on every row; F32 output, so no rounding hides a move).
      for (const id of [151650, 151667, 151668, 0]) {
        expect(row(thetaT, id)).not.toEqual(row(thetaI, id));
        expect(row(thetaM, id)).not.toEqual(row(thetaI, id));
      }
    });
  });
});
