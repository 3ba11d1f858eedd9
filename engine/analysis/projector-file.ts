/**
 * GSP projectors as an open safetensors artifact (also what `crane analyze --export` writes).
 *
 *   writeProjectors(path, projectors)   `layer_3_attn_input.V` (F32, d × r) and `layer_3_attn_input.sigma` (F64, r)
 *   readProjectors(path) → Map<key, GspProjector>
 *
 * V_r is stored exactly as the engine holds it (float32, row-major d × r: row j is coordinate j
 * of every direction), σ in float64, so a reloaded projector gives bit-identical edits.
 */
import { CheckpointError } from '../io/checkpoint-error.ts';
import { SafetensorsFile } from '../io/safetensors-reader.ts';
import { writeSafetensors } from '../io/safetensors-writer.ts';
import type { GspProjector } from '../crane/gsp-projector.ts';

const PROJECTOR_FORMAT = 'crane-gsp-projectors';

export async function writeProjectors(path: string, projectors: ReadonlyMap<string, GspProjector>): Promise<void> {
  const tensors = [...projectors].flatMap(([key, p]) => [
    { spec: { name: `${key}.V`, dtype: 'F32' as const, shape: [p.dim, p.rank] }, data: p.basis },
    { spec: { name: `${key}.sigma`, dtype: 'F64' as const, shape: [p.rank] }, data: p.sigma },
  ]);
  await writeSafetensors(path, tensors, { format: PROJECTOR_FORMAT });
}

export async function readProjectors(path: string): Promise<Map<string, GspProjector>> {
  const file = await SafetensorsFile.open(path);
  try {
    if (file.metadata['format'] !== PROJECTOR_FORMAT) throw new CheckpointError('metadata', path, `is not a projector file (format "${file.metadata['format'] ?? ''}")`);
    const projectors = new Map<string, GspProjector>();
    for (const info of file.tensors.values()) {
      if (!info.name.endsWith('.V')) continue;
      const key = info.name.slice(0, -2);
      const sigmaInfo = file.tensors.get(`${key}.sigma`);
      const [dim, rank] = info.shape;
      if (info.dtype !== 'F32' || dim === undefined || rank === undefined || info.shape.length !== 2) {
        throw new CheckpointError('shape', path, 'must be an F32 matrix d × r', info.name);
      }
      if (sigmaInfo?.dtype !== 'F64' || sigmaInfo.shape.length !== 1 || sigmaInfo.shape[0] !== rank) {
        throw new CheckpointError('shape', path, `needs an F64 vector of ${rank} singular values`, `${key}.sigma`);
      }
      const basis = (await file.readRaw(info.name)) as Float32Array;
      const sigma = (await file.readRaw(`${key}.sigma`)) as Float64Array;
      projectors.set(key, { dim, rank, basis, sigma });
    }
    return projectors;
  } finally {
    await file.close();
  }
}
