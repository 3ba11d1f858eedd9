/**
 * `--override K=S` keys checked against the checkpoint the edit is applied to: a key no tensor
 * looks up (a layer past the last, a group the model lacks, a typo such as "atention@3") would
 * change nothing and still be recorded in the recipe as if it had, so it is refused by name.
 * A fused expert tensor offers the keys of its per-expert parts (`expert.1@1`), the blocks the
 * merge edits it by, not the fused name's own (`expert.gate_up@1`), which the merge never looks up.
 */
import { overrideKeys } from '../crane/gate-scales.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import { expertParts } from '../crane/expert-parts.ts';
import type { TensorInfo } from '../io/safetensors-header.ts';
import { UsageError } from './command.ts';

export function assertOverridesMatch(overrideScales: Readonly<Record<string, number>>, tensors: Iterable<Pick<TensorInfo, 'name' | 'shape'>>, dir: string): void {
  const requested = Object.keys(overrideScales);
  if (requested.length === 0) return;
  const used = new Set<string>();
  for (const { name, shape } of tensors) {
    for (const part of expertParts(classifyTensor(name), shape)) for (const key of overrideKeys(part.tensor)) used.add(key);
  }
  const unmatched = requested.filter((key) => !used.has(key));
  if (unmatched.length > 0) {
    throw new UsageError(`--override ${unmatched.join(', ')}: no tensor of ${dir} has this block (blocks are group@layer or group@*, e.g. attention@0 … ffn.up@*)`);
  }
}

/** The same check against a checkpoint folder (verify: the analysed Instruct), reading only its headers. */
export async function assertOverridesMatchCheckpoint(overrideScales: Readonly<Record<string, number>>, dir: string): Promise<void> {
  if (Object.keys(overrideScales).length === 0) return;
  const checkpoint = await Checkpoint.open(dir);
  try {
    assertOverridesMatch(overrideScales, checkpoint.tensors.values(), dir);
  } finally {
    await checkpoint.close();
  }
}
