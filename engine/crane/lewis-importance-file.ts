/**
 * LEWIS importance files: one scalar per transformer-block Linear, keyed by module name
 * ("model.layers.3.self_attn.q_proj"), as the reference's lewis_importance.py writes them.
 *
 *   readLewisImportance(path) → { importance, sha256 }
 *   writeLewisImportance(path, importance)   JSON, sorted by module, replaced atomically
 *
 * Two encodings, by extension: the reference's own torch.save dict (`.pt`, read by the engine's
 * weights-only unpickler) or a JSON object of the same shape (`.json`). The SHA-256 is of the
 * file's bytes, so a recipe can name exactly the importances a LEWIS merge was scheduled from.
 * The engine writes JSON (`crane lewis-importance`, an analysis' LEWIS files): sorted keys, so equal
 * importances give equal bytes and equal hashes.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { writeFileAtomic } from '../io/atomic-file.ts';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readTorchFile } from '../io/torch-file.ts';
import type { TorchValue } from '../io/torch-value.ts';
import type { LewisImportance } from './lewis-schedule.ts';

export interface LewisImportanceFile {
  readonly importance: LewisImportance;
  readonly sha256: string;
}

export async function readLewisImportance(path: string): Promise<LewisImportanceFile> {
  const bytes = await readFile(path).catch((error: unknown) => {
    throw new CheckpointError('not-found', path, `LEWIS importance file cannot be read (${error instanceof Error ? error.message : String(error)})`);
  });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const extension = extname(path).toLowerCase();
  if (extension === '.pt' || extension === '.pth') return { importance: fromTorchValue(path, await readTorchFile(path)), sha256 };
  if (extension === '.json') return { importance: fromJson(path, bytes.toString('utf8')), sha256 };
  throw new CheckpointError('metadata', path, 'LEWIS importance files are .pt (lewis_importance.py) or .json');
}

function fromTorchValue(path: string, value: TorchValue): LewisImportance {
  if (!(value instanceof Map)) throw new CheckpointError('metadata', path, 'does not hold a dict of module name → importance');
  return checkedImportance(path, value.entries());
}

function fromJson(path: string, text: string): LewisImportance {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CheckpointError('metadata', path, `is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new CheckpointError('metadata', path, 'does not hold an object of module name → importance');
  return checkedImportance(path, Object.entries(json));
}

function checkedImportance(path: string, entries: Iterable<readonly [string, unknown]>): LewisImportance {
  const importance = new Map<string, number>();
  for (const [moduleName, v] of entries) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new CheckpointError('metadata', path, `importance of ${moduleName} is ${String(v)}, not a finite number ≥ 0`);
    importance.set(moduleName, v);
  }
  if (importance.size === 0) throw new CheckpointError('metadata', path, 'holds no module importance');
  return importance;
}

export async function writeLewisImportance(path: string, importance: LewisImportance): Promise<void> {
  const sorted = Object.fromEntries([...importance].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  await writeFileAtomic(path, `${JSON.stringify(sorted, null, 1)}\n`);
}
