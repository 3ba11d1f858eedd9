/** Unit cases of the pieces that make the cache safe to interrupt: gradient generations, decode cache, split. */
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { heldOutCount, heldOutMask, promptRecords } from './calibration-sets.ts';
import { DecodeCache } from './decode-cache.ts';
import { GradientStore } from './gradient-store.ts';

const grads = (name: string, ...v: number[]) => new Map([[name, Float32Array.from(v)]]);

describe('GradientStore', () => {
  it('sums committed batches and drops a half-added batch on reopen', () => withTempDir(async (dir) => {
    const store = await GradientStore.open(dir);
    await store.addLayer(0, grads('w0', 1, 2));
    await store.addLayer(1, grads('w1', 3));
    await store.commitBatch();
    await store.addLayer(0, grads('w0', 10, 20)); // batch 2 written for layer 0 only: a crash
    const reopened = await GradientStore.open(dir);
    expect(reopened.batchesDone).toBe(1);
    expect((await readdir(dir)).sort()).toEqual(['layer_0@1.safetensors', 'layer_1@1.safetensors', 'progress.json']);
    await reopened.addLayer(0, grads('w0', 0.5, 0.5));
    await reopened.addLayer(1, grads('w1', 1));
    await reopened.commitBatch();
    expect(Array.from((await reopened.readLayer(0)).get('w0') ?? [])).toEqual([1.5, 2.5]);
    expect(Array.from((await reopened.readLayer(1)).get('w1') ?? [])).toEqual([4]);
    expect((await readdir(dir)).sort()).toEqual(['layer_0@2.safetensors', 'layer_1@2.safetensors', 'progress.json']);
  }));

  it('refuses a progress file of another shape, naming it', () => withTempDir(async (dir) => {
    await writeFile(join(dir, 'progress.json'), '{"batchesDone": "two"}');
    await expect(GradientStore.open(dir)).rejects.toThrow(`${join(dir, 'progress.json')}: is not a gradient progress file`);
  }));
});

describe('DecodeCache', () => {
  it('keeps finished targets across a torn last line', () => withTempDir(async (dir) => {
    const path = join(dir, 'cache.jsonl');
    const cache = await DecodeCache.open(path);
    await cache.put('a', { tokens: [1, 2], stopReason: 'stop-token' });
    await appendFile(path, '{"key":"b","tok');
    const reopened = await DecodeCache.open(path);
    expect(reopened.size).toBe(1);
    await reopened.put('c', { tokens: [3], stopReason: 'max-tokens' });
    const again = await DecodeCache.open(path);
    expect(again.get('a')?.tokens).toEqual([1, 2]);
    expect(again.get('c')).toEqual({ tokens: [3], stopReason: 'max-tokens' });
    expect((await readFile(path, 'utf8')).split('\n')).toHaveLength(4);
  }));

  it('refuses a whole line of another shape, naming file and line (a torn line is never JSON)', () => withTempDir(async (dir) => {
    const path = join(dir, 'cache.jsonl');
    const cache = await DecodeCache.open(path);
    await cache.put('a', { tokens: [1, 2], stopReason: 'stop-token' });
    await appendFile(path, '{"key":"b","tokens":[1.5],"stopReason":"stop-token"}\n');
    await expect(DecodeCache.open(path)).rejects.toThrow(`${path}:2: is not a decode-cache line`);
  }));
});

describe('held-out split', () => {
  const records = promptRecords(Array.from({ length: 8 }, (_, i) => ({ file: 'r.jsonl', line: i + 1, messages: [{ role: 'user' as const, content: `prompt ${i}` }] })));

  it('holds out round(n·f), at least one and never all', () => {
    expect([heldOutCount(8, 0.25), heldOutCount(2, 0.9), heldOutCount(3, 0.01), heldOutCount(1, 0.5), heldOutCount(8, 0)]).toEqual([2, 1, 1, 0, 0]);
    expect(heldOutMask(records, 0.25).filter(Boolean)).toHaveLength(2);
  });

  it('depends on the prompts, not on the file order', () => {
    const mask = heldOutMask(records, 0.25);
    const reversed = heldOutMask([...records].reverse(), 0.25).reverse();
    expect(reversed).toEqual(mask);
  });

  it('treats a final assistant message as the given target', () => {
    const [record] = promptRecords([{ file: 'r.jsonl', line: 1, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }] }]);
    expect(record?.target).toEqual({ role: 'assistant', content: 'a' });
    expect(record?.prompt.messages).toHaveLength(1);
  });
});
