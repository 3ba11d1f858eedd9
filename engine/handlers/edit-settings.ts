/**
 * The protocol's edit settings and merge methods → the engine's.
 *
 *   craneSettingsOf(settings, columns, tokens) → CraneSettings
 *   editMethodOf(method, crane, magnitudes?) → EditMethod       (verify: every method, AIM too)
 *   exportMethodOf(method, crane) → what exportMerge accepts     (AIM cannot be recipe'd yet)
 *
 * Names differ on purpose at this seam: the protocol says `ctg`, `grouping`, `thinkRows`,
 * `task-arithmetic`, `dropRate`; the engine says `gate`, `granularity`, `thinkStrength`,
 * `task_arithmetic`, `dropProbability`. Overrides name heatmap columns (block-columns.ts); each
 * becomes a key of resolveScale's override map, and a locked block gets S = 0, so its crane-rule
 * tensors keep θ_I exactly. The router's t = α/3 is fixed in the engine (special-tensors.ts):
 * another routerAlphaFraction is reported by the caller, not silently half-applied.
 */
import type { CraneSettings } from '../crane/crane-edit.ts';
import { blockKey } from '../crane/gate-accumulator.ts';
import type { TokenRows } from '../crane/special-tensors.ts';
import type { RecipeBaseline } from '../export/recipe.ts';
import { aimImportance, type EditMethod } from '../pipeline/edit-method.ts';
import { ProtocolError } from '../protocol/errors.ts';
import type { Params } from '../protocol/methods.ts';
import type { EditSettings } from '../project/default-settings.ts';
import type { BlockColumns } from './block-columns.ts';

export type MergeMethod = Params<'verify'>['method'];
type CraneMethod = { readonly method: 'crane'; readonly settings: CraneSettings };

export interface ColumnSets {
  readonly coarse: BlockColumns;
  readonly fine: BlockColumns;
}

export function craneSettingsOf(settings: EditSettings, columns: ColumnSets | null, tokens: TokenRows): CraneSettings {
  return {
    alpha: settings.alpha,
    keepQuantile: settings.keepQuantile,
    tau: settings.tau,
    steepness: settings.steepness,
    stages: { threshold: settings.stages.threshold, gate: settings.stages.ctg, gsp: settings.stages.gsp },
    granularity: settings.grouping,
    overrides: overrideMap(settings.overrides, columns),
    tokens,
    thinkStrength: settings.special.thinkRows,
    lmHeadScale: settings.special.lmHeadScale,
  };
}

/** Column overrides → resolveScale keys; overrides of columns this analysis does not have are dropped. */
function overrideMap(overrides: EditSettings['overrides'], columns: ColumnSets | null): Map<string, number> {
  const map = new Map<string, number>();
  for (const { block, gate, locked } of overrides) {
    if (!locked && gate === null) continue;
    const target = columns?.coarse.blockOf(block.group) ?? columns?.fine.blockOf(block.group);
    if (target === undefined) continue;
    map.set(blockKey({ group: target.group, block: target.block, layer: block.layer }), locked ? 0 : (gate as number));
  }
  return map;
}

export function editMethodOf(method: MergeMethod, crane: (s: EditSettings) => CraneSettings, magnitudes?: ReadonlyMap<string, Float64Array>): EditMethod {
  if (method.kind === 'aim') {
    if (magnitudes === undefined) throw new ProtocolError('not-found', 'AIM needs the input magnitudes of an analysis: run Analyze first');
    return { method: 'aim', lambda: method.lambda, omega: method.omega, importance: aimImportance(magnitudes) };
  }
  return exportMethodOf(method, crane);
}

export function exportMethodOf(method: MergeMethod, crane: (s: EditSettings) => CraneSettings): CraneMethod | RecipeBaseline {
  switch (method.kind) {
    case 'crane': return { method: 'crane', settings: crane(method.settings) };
    case 'task-arithmetic': return { method: 'task_arithmetic', lambda: method.lambda };
    case 'ties': return { method: 'ties', lambda: method.lambda, density: method.density };
    case 'slerp': return { method: 'slerp', t: method.t };
    case 'dare': return { method: 'dare', lambda: method.lambda, dropProbability: method.dropRate, seed: method.seed };
    case 'aim': throw new ProtocolError('not-implemented', 'AIM merges cannot be exported yet (their input magnitudes are not part of a recipe); Verify measures them');
  }
}
