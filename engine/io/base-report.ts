/**
 * Compatibility of an optional Base checkpoint with an Instruct/Thinking pair, for methods that
 * form τ = θ_I − θ_B (RAIN). The base must have the pair's architecture and every tensor the pair
 * shares, in the same shape: a missing or reshaped tensor leaves no τ to form, so it is an error.
 * Extra tensors in the base are ignored (nothing reads them). Tokenizers are not compared: τ is
 * formed weight by weight and a base model commonly lacks the chat template and think tokens.
 */
import type { Checkpoint } from './checkpoint.ts';
import { canonicalJson } from './tokenizer-files.ts';
import { countOf } from './finding-text.ts';
import type { PairFinding } from './pair-report.ts';

export interface BaseReport {
  readonly dir: string;
  /** Tensors of the pair present in the base with the same shape. */
  readonly matchedTensors: number;
  /** Tensors the pair shares (same shape on both sides) that the base lacks. */
  readonly missingTensors: readonly string[];
  readonly shapeMismatches: readonly { readonly name: string; readonly base: string; readonly pair: string }[];
}

/** structuralFields: the config fields that fix shapes or forward math (pair-report.ts owns the list). */
export function compareBase(
  base: Checkpoint,
  pair: { readonly instruct: Checkpoint; readonly thinking: Checkpoint },
  structuralFields: readonly string[],
  findings: PairFinding[],
): BaseReport {
  const { instruct, thinking } = pair;
  const field = (config: Readonly<Record<string, unknown>>, key: string) => canonicalJson(Object.hasOwn(config, key) ? config[key] : undefined);
  for (const key of structuralFields) {
    const [left, right] = [field(instruct.config, key), field(base.config, key)];
    if (left !== right) {
      findings.push({ severity: 'error', code: 'base-config', message: `config.json "${key}" differs: Instruct ${left ?? 'absent'}, Base ${right ?? 'absent'}` });
    }
  }
  const missingTensors: string[] = [];
  const shapeMismatches: { name: string; base: string; pair: string }[] = [];
  let matchedTensors = 0;
  for (const [name, tensor] of instruct.tensors) {
    const shape = tensor.shape.join('x');
    if (thinking.tensors.get(name)?.shape.join('x') !== shape) continue;
    const inBase = base.tensors.get(name);
    if (inBase === undefined) missingTensors.push(name);
    else if (inBase.shape.join('x') !== shape) shapeMismatches.push({ name, base: `[${inBase.shape.join(', ')}]`, pair: `[${tensor.shape.join(', ')}]` });
    else matchedTensors++;
  }
  const list = (names: readonly string[]) => `${names.slice(0, 5).join(', ')}${names.length > 5 ? `, … (${names.length} in all)` : ''}`;
  if (missingTensors.length > 0) {
    findings.push({ severity: 'error', code: 'base-tensor-missing', message: `${countOf(missingTensors.length, 'tensor of the pair is', 'tensors of the pair are')} missing from Base ${base.dir}: ${list(missingTensors)}` });
  }
  if (shapeMismatches.length > 0) {
    findings.push({ severity: 'error', code: 'base-tensor-shape', message: `${countOf(shapeMismatches.length, 'tensor differs', 'tensors differ')} in shape between Base and the pair: ${list(shapeMismatches.map((m) => `${m.name} ${m.base} vs ${m.pair}`))}` });
  }
  return { dir: base.dir, matchedTensors, missingTensors, shapeMismatches };
}
