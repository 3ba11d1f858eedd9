/**
 * Child process for the interrupted-export test: writes a sharded checkpoint slowly, printing
 * "progress N" after each tensor, so the parent can kill it mid-way.
 * Usage: node --import tsx engine/io/testing/slow-export.ts OUT_DIR
 * SLOW_EXPORT_DELAY_MS sets the pause per tensor (default 25; the fsync trace test uses 0).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeCheckpoint } from '../checkpoint-writer.ts';
import { seededFloats } from './fixtures.ts';

const out = process.argv[2];
if (out === undefined) throw new Error('usage: slow-export.ts OUT_DIR');
const delayMs = Number(process.env['SLOW_EXPORT_DELAY_MS'] ?? 25);
const specs = Array.from({ length: 40 }, (_, i) => ({ name: `layers.${i}.weight`, dtype: 'BF16' as const, shape: [64, 64] }));
await writeCheckpoint(out, {
  specs,
  maxShardBytes: 8192 * 4,
  produce: async (spec) => {
    await sleep(delayMs);
    return seededFloats(64 * 64, spec.name.length);
  },
  onProgress: ({ tensorsDone }) => process.stdout.write(`progress ${tensorsDone}\n`),
  writeSideFiles: (dir) => writeFile(join(dir, 'config.json'), '{}'),
});
process.stdout.write('done\n');
