/**
 * Preview coefficients as safetensors: the flat arrays the preview sums, with the entry table
 * (block, layer, projector, offsets) in the header metadata.
 *
 *   writeCoefficients(path, coefficients)
 *   readCoefficients(path) → PreviewCoefficients
 *
 * Tensors: `scalars` (F64, entries × 6), `directions` (F64, Σrank × 6) and `spectrum.{key}`
 * (F64, σ_i/σ_1) per projector key; float64 throughout so a reload changes no bit.
 */
import { z } from 'zod';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { parseJsonText } from '../io/json-file.ts';
import { SafetensorsFile } from '../io/safetensors-reader.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import { layerGroupSchema } from './gate-table-file.ts';
import type { PreviewCoefficients } from './preview-coefficients.ts';
import { MOMENTS } from './tensor-moments.ts';

const COEFFICIENT_FORMAT = 'crane-preview-coefficients';
const SPECTRUM_PREFIX = 'spectrum.';

const entriesSchema = z.array(z.strictObject({
  group: layerGroupSchema,
  block: z.string(),
  layer: z.int().nonnegative(),
  projector: z.string().nullable(),
  tensors: z.int().positive(),
  coordinates: z.int().nonnegative(),
  directionOffset: z.int().nonnegative(),
  rank: z.int().nonnegative(),
}));

export async function writeCoefficients(path: string, c: PreviewCoefficients): Promise<void> {
  const f64 = (name: string, shape: number[], data: Float64Array) => ({ spec: { name, dtype: 'F64' as const, shape }, data });
  await writeSafetensors(
    path,
    [
      f64('scalars', [c.entries.length, MOMENTS], c.scalars),
      f64('directions', [c.directions.length / MOMENTS, MOMENTS], c.directions),
      ...[...c.spectra].map(([key, ratios]) => f64(`${SPECTRUM_PREFIX}${key}`, [ratios.length], ratios)),
    ],
    { format: COEFFICIENT_FORMAT, keepQuantile: String(c.keepQuantile), entries: JSON.stringify(c.entries) },
  );
}

export async function readCoefficients(path: string): Promise<PreviewCoefficients> {
  const file = await SafetensorsFile.open(path);
  try {
    const { metadata } = file;
    if (metadata['format'] !== COEFFICIENT_FORMAT) throw new CheckpointError('metadata', path, `is not a preview-coefficient file (format "${metadata['format'] ?? ''}")`);
    const entries = parseEntries(path, metadata['entries']);
    const keepQuantile = Number(metadata['keepQuantile']);
    if (!(keepQuantile >= 0 && keepQuantile < 1)) throw new CheckpointError('metadata', path, `keepQuantile "${metadata['keepQuantile'] ?? ''}" is not in [0, 1)`);
    const read = async (name: string, length: number) => {
      const info = file.info(name);
      if (info.dtype !== 'F64' || info.end - info.begin !== length * 8) throw new CheckpointError('shape', path, `must be F64 with ${length} values`, name);
      return (await file.readRaw(name)) as Float64Array;
    };
    const directionCount = entries.reduce((sum, e) => sum + e.rank, 0);
    const spectra = new Map<string, Float64Array>();
    for (const name of file.tensors.keys()) {
      if (name.startsWith(SPECTRUM_PREFIX)) spectra.set(name.slice(SPECTRUM_PREFIX.length), await read(name, file.info(name).shape[0] ?? 0));
    }
    for (const e of entries) {
      if (e.projector !== null && spectra.get(e.projector)?.length !== e.rank) throw new CheckpointError('metadata', path, `entry ${e.group}.${e.block}@${e.layer} needs a spectrum of ${e.rank} for ${e.projector}`);
    }
    return { keepQuantile, entries, scalars: await read('scalars', entries.length * MOMENTS), directions: await read('directions', directionCount * MOMENTS), spectra };
  } finally {
    await file.close();
  }
}

function parseEntries(path: string, text: string | undefined): z.infer<typeof entriesSchema> {
  if (text === undefined) throw new CheckpointError('metadata', path, 'has no "entries" table in its metadata');
  const entries = parseJsonText(path, text, entriesSchema, 'a preview-coefficient file (its "entries" metadata)');
  let offset = 0;
  for (const e of entries) {
    if (e.directionOffset !== offset) throw new CheckpointError('metadata', path, `entry ${e.group}.${e.block}@${e.layer} starts at direction ${e.directionOffset}, expected ${offset}`);
    offset += e.rank;
  }
  return entries;
}
