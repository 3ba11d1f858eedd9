import { spawn, execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoint } from './checkpoint.ts';
import { writeCheckpoint } from './checkpoint-writer.ts';
import { planShards, shardFileName } from './shard-plan.ts';
import { f32Tensor, withTempDir, writeFixtureCheckpoint } from './testing/fixtures.ts';
import type { TensorSpec } from './tensor-encoding.ts';

const spec = (name: string, elements: number): TensorSpec => ({ name, dtype: 'F32', shape: [elements] });

describe('shard planning', () => {
  it('names shards like transformers and packs greedily by byte budget', () => {
    expect(shardFileName(0, 3)).toBe('model-00001-of-00003.safetensors');
    const shards = planShards([spec('a', 10), spec('b', 10), spec('c', 30), spec('d', 5)], 100);
    expect(shards.map((s) => [s.file, s.specs.map((t) => t.name), s.bytes])).toEqual([
      ['model-00001-of-00003.safetensors', ['a', 'b'], 80],
      ['model-00002-of-00003.safetensors', ['c'], 120], // larger than the budget: alone
      ['model-00003-of-00003.safetensors', ['d'], 20],
    ]);
  });

  it('writes one shard as model.safetensors', () => {
    expect(planShards([spec('a', 1)], 100).map((s) => s.file)).toEqual(['model.safetensors']);
  });
});

describe('writeCheckpoint', () => {
  it('writes shards, an index and side files that read back exactly', async () => {
    await withTempDir(async (root) => {
      const tensors = [f32Tensor('embed', [8, 4], 1), f32Tensor('layers.0.w', [4, 4], 2), f32Tensor('layers.1.w', [4, 4], 3), f32Tensor('norm', [4], 4)];
      const dir = await writeFixtureCheckpoint(join(root, 'out'), tensors, { maxShardBytes: 128, sideFiles: { 'tokenizer.json': '{}' } });
      expect((await readdir(dir)).sort()).toEqual([
        'config.json', 'model-00001-of-00003.safetensors', 'model-00002-of-00003.safetensors', 'model-00003-of-00003.safetensors',
        'model.safetensors.index.json', 'tokenizer.json',
      ]);
      const index = JSON.parse(await readFile(join(dir, 'model.safetensors.index.json'), 'utf8'));
      expect(index).toEqual({
        metadata: { total_size: 128 + 64 + 64 + 16 },
        weight_map: {
          embed: 'model-00001-of-00003.safetensors',
          'layers.0.w': 'model-00002-of-00003.safetensors',
          'layers.1.w': 'model-00002-of-00003.safetensors',
          norm: 'model-00003-of-00003.safetensors',
        },
      });
      const checkpoint = await Checkpoint.open(dir);
      try {
        expect(checkpoint.sideFiles).toEqual(['tokenizer.json']);
        expect(checkpoint.totalBytes).toBe(272);
        for (const t of tensors) expect(await checkpoint.readFloat32(t.spec.name)).toEqual(t.data);
      } finally {
        await checkpoint.close();
      }
    });
  });

  it('reports progress per tensor and leaves no trace when a tensor fails', async () => {
    await withTempDir(async (root) => {
      const target = join(root, 'out');
      const seen: number[] = [];
      const failing = writeCheckpoint(target, {
        specs: [spec('a', 4), spec('b', 4), spec('c', 4)],
        maxShardBytes: 16,
        produce: async (s) => {
          if (s.name === 'c') throw new Error('NaN in tensor c');
          return new Float32Array(4);
        },
        onProgress: (p) => seen.push(p.tensorsDone),
      });
      await expect(failing).rejects.toThrow('NaN in tensor c');
      expect(seen).toEqual([1, 2]);
      expect(await readdir(root)).toEqual([]);
    });
  });

  it('stops on cancel and leaves nothing behind', async () => {
    await withTempDir(async (root) => {
      const controller = new AbortController();
      const run = writeCheckpoint(join(root, 'out'), {
        specs: [spec('a', 4), spec('b', 4)],
        signal: controller.signal,
        produce: async () => {
          controller.abort();
          return new Float32Array(4);
        },
      });
      await expect(run).rejects.toThrow(/export cancelled/);
      expect(await readdir(root)).toEqual([]);
    });
  });

  it('refuses an existing folder unless asked to overwrite, and then swaps it only when complete', async () => {
    await withTempDir(async (root) => {
      const target = join(root, 'out');
      await mkdir(target);
      await writeFile(join(target, 'keep.txt'), 'old');
      const options = { specs: [spec('a', 2)], produce: async () => Float32Array.from([1, 2]) };
      await expect(writeCheckpoint(target, options)).rejects.toThrow(`${target}: output folder already exists`);
      const failing = writeCheckpoint(target, { ...options, overwrite: true, produce: async () => { throw new Error('boom'); } });
      await expect(failing).rejects.toThrow('boom');
      expect(await readdir(target)).toEqual(['keep.txt']);
      await writeCheckpoint(target, { ...options, overwrite: true });
      expect(await readdir(target)).toEqual(['model.safetensors']);
      expect(await readdir(root)).toEqual(['out']);
    });
  });

  it('leaves no folder that looks complete when the process is killed mid-export, and the rerun cleans up', async () => {
    await withTempDir(async (root) => {
      const target = join(root, 'out');
      const child = spawn(process.execPath, ['--import', 'tsx', 'engine/io/testing/slow-export.ts', target], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk: Buffer) => {
          if (/progress 1[0-9]/.test(chunk.toString())) {
            child.kill('SIGKILL');
            resolve();
          }
        });
      });
      await new Promise((resolve) => child.on('exit', resolve));
      const left = await readdir(root);
      expect(left).not.toContain('out');
      expect(left.every((name) => name.startsWith('.out.crane-tmp-'))).toBe(true);
      await expect(Checkpoint.open(target)).rejects.toThrow(/checkpoint folder not found/);
      // The next run of the same target reclaims what the killed one left.
      await writeCheckpoint(target, { specs: [spec('a', 2)], produce: async () => Float32Array.from([1, 2]) });
      expect(await readdir(root)).toEqual(['out']);
    });
  });

  it('fails with a clear message and no output when the disk fills up', async (context) => {
    if (process.getuid?.() !== 0) {
      console.warn('SKIPPED full-disk test: mounting a small tmpfs needs root');
      context.skip();
    }
    await withTempDir(async (root) => {
      const mount = join(root, 'small-disk');
      await mkdir(mount);
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mount]);
      } catch {
        console.warn('SKIPPED full-disk test: this machine refuses to mount a tmpfs');
        context.skip();
      }
      try {
        const run = writeCheckpoint(join(mount, 'out'), {
          specs: Array.from({ length: 8 }, (_, i) => spec(`w${i}`, 16 * 1024)),
          maxShardBytes: 128 * 1024,
          produce: async () => new Float32Array(16 * 1024),
        });
        await expect(run).rejects.toThrow(/model-\d{5}-of-00004\.safetensors: (tensor "w\d": )?disk full while writing/);
        expect(await readdir(mount)).toEqual([]);
      } finally {
        execFileSync('umount', [mount]);
      }
    });
  });
});
