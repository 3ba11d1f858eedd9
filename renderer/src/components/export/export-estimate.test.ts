import { describe, expect, it } from 'vitest';
import { estimateExport, exportedBytes } from './export-estimate.ts';

const bf16 = (n: number) => ({ dtype: 'BF16', shape: [n], bytes: 2 * n });
const i64 = (n: number) => ({ dtype: 'I64', shape: [n], bytes: 8 * n });

describe('export estimate', () => {
  it('converts floating tensors to the chosen dtype and copies the rest as they are', () => {
    expect(exportedBytes(bf16(10), 'F32')).toBe(40);
    expect(exportedBytes(bf16(10), 'source')).toBe(20);
    expect(exportedBytes({ dtype: 'F32', shape: [2, 5], bytes: 40 }, 'BF16')).toBe(20);
    expect(exportedBytes(i64(10), 'F16')).toBe(80);
  });

  it('fills shards greedily in tensor order; a tensor over the budget gets its own', () => {
    // 60 + 60 > 100: a new shard each time; the 150-byte tensor alone; then 30 + 60 fit.
    const tensors = [bf16(30), bf16(30), bf16(75), bf16(15), bf16(30)];
    expect(estimateExport(tensors, 'source', 100)).toEqual({ bytes: 360, shards: 4 });
    expect(estimateExport(tensors, 'source', 1000)).toEqual({ bytes: 360, shards: 1 });
    expect(estimateExport(tensors, 'F32', 1000)).toEqual({ bytes: 720, shards: 1 });
    expect(estimateExport([], 'source', 100)).toEqual({ bytes: 0, shards: 1 });
  });
});
