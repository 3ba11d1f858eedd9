/**
 * Copies of a one-file safetensors checkpoint changed the way a broken pair is: a config field
 * set to another value, or a tensor left out. The pair report must tell these apart ("cannot
 * merge" against "can merge, with caveats"), so the specs make them from the real demo pair.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface HeaderEntry {
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly data_offsets: readonly [number, number];
}

/** `src` copied to `dst` with config.json's `changes` applied. */
export function copyWithConfig(src: string, dst: string, changes: (config: Record<string, unknown>) => Record<string, unknown>): void {
  cpSync(src, dst, { recursive: true });
  const config = JSON.parse(readFileSync(join(src, 'config.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dst, 'config.json'), JSON.stringify(changes(config)));
}

/** `src` copied to `dst` without the tensor `name` in model.safetensors (the data area re-tiled). */
export function copyWithoutTensor(src: string, dst: string, name: string): void {
  cpSync(src, dst, { recursive: true });
  const file = readFileSync(join(src, 'model.safetensors'));
  const headerLength = Number(file.readBigUInt64LE(0));
  const header = JSON.parse(file.subarray(8, 8 + headerLength).toString('utf8')) as Record<string, HeaderEntry | Record<string, string>>;
  if (!(name in header)) throw new Error(`${src}: no tensor ${name} to leave out`);
  const data = file.subarray(8 + headerLength);
  const kept: [string, unknown][] = [];
  const parts: Buffer[] = [];
  let offset = 0;
  for (const [key, entry] of Object.entries(header)) {
    if (key === name) continue;
    if (key === '__metadata__') {
      kept.push([key, entry]);
      continue;
    }
    const { dtype, shape, data_offsets: [start, end] } = entry as HeaderEntry;
    kept.push([key, { dtype, shape, data_offsets: [offset, offset + end - start] }]);
    parts.push(data.subarray(start, end));
    offset += end - start;
  }
  const json = Buffer.from(JSON.stringify(Object.fromEntries(kept)), 'utf8');
  const padded = Buffer.alloc(Math.ceil(json.length / 8) * 8, 0x20);
  json.copy(padded);
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(padded.length));
  writeFileSync(join(dst, 'model.safetensors'), Buffer.concat([prefix, padded, ...parts]));
}
