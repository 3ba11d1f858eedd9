/**
 * A tiny untied pair on disk with the edit's basis at the default settings and a projector for
 * every GSP key of its layers (from a few seeded rows), so that every kind of Δ is there: GSP-
 * projected layer tensors, unprojected ones, the embedding's and lm_head's think rows, lm_head's
 * blend. For the Δ tests (tensor-deltas, direction-deltas); the caller closes the pair.
 */
import { editDirections, type DirectionBasis } from '../../crane/edit-directions.ts';
import { projectorFromGram, type GspProjector } from '../../crane/gsp-projector.ts';
import { classifyTensor, projectorKey } from '../../crane/tensor-classification.ts';
import { Checkpoint } from '../../io/checkpoint.ts';
import { defaultResolvedSettings } from '../../protocol/settings-defaults.ts';
import { SeededRandom } from '../../protocol/seeded-random.ts';
import { editTokenRows } from '../checkpoint-tokenizer.ts';
import type { CheckpointPair } from '../tensor-deltas.ts';
import { writeTinyProject } from './tiny-project.ts';

export interface DeltaPair extends CheckpointPair {
  readonly basis: DirectionBasis;
}

export async function writeDeltaPair(root: string): Promise<DeltaPair> {
  const project = await writeTinyProject(root, { model: { tied: false }, noise: 0.01 });
  const [instruct, thinking] = [await Checkpoint.open(project.instruct), await Checkpoint.open(project.thinking)];
  const tokens = await editTokenRows(project.instruct, () => undefined);
  const dim = instruct.tensor('model.embed_tokens.weight').shape[1] as number;
  const rng = new SeededRandom(5);
  const projectors = new Map<string, GspProjector>();
  for (const layer of new Set([...instruct.tensors.keys()].map((name) => classifyTensor(name).layer))) {
    if (layer === null) continue;
    for (const key of ['attn_input', 'ffn_input'] as const) {
      const rows = rng.normals(5 * dim, 1);
      const gram = new Float64Array(dim * dim);
      for (let r = 0; r < 5; r++) for (let i = 0; i < dim; i++) for (let j = 0; j < dim; j++) gram[i * dim + j] = (gram[i * dim + j] as number) + (rows[r * dim + i] as number) * (rows[r * dim + j] as number);
      projectors.set(projectorKey(layer, key), projectorFromGram(gram, dim, { rowCount: 5 }));
    }
  }
  const basis = editDirections(instruct.tensors.keys(), defaultResolvedSettings(tokens), tokens, { gate: null, projector: (key) => projectors.get(key) });
  return { instruct, thinking, basis };
}
