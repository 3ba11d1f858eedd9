/**
 * `--override K=S` keys checked against the checkpoint the edit is applied to: a key no tensor
 * looks up (a layer past the last, a group the model lacks, a typo such as "atention@3") would
 * change nothing and still be recorded in the recipe as if it had, so it is refused by name.
 */
import { overrideKeys } from '../crane/gate-scales.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { classifyTensor } from '../crane/tensor-classification.ts';
import { UsageError } from './command.ts';

export function assertOverridesMatch(overrideScales: Readonly<Record<string, number>>, tensorNames: Iterable<string>, dir: string): void {
  const requested = Object.keys(overrideScales);
  if (requested.length === 0) return;
  const used = new Set<string>();
  for (const name of tensorNames) for (const key of overrideKeys(classifyTensor(name))) used.add(key);
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
    assertOverridesMatch(overrideScales, checkpoint.tensors.keys(), dir);
  } finally {
    await checkpoint.close();
  }
}
