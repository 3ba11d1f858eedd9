/**
 * crane_recipe.json versions 1–3 → the current version (4), in one place (parseRecipe calls it
 * before validating).
 *
 * Version 4 added AIM-TA, AIM-TIES and LEWIS recipes and their `importance` files; no earlier
 * recipe could hold those methods, so an older one reads with `importance: null`.
 *
 * Version 3 changed what `slerp` computes: the baseline now follows the reference's
 * baseline/slerp.py (unit directions on the arc, norms linear, linear only where |sin Ω| < 1e-3);
 * versions 1–2 used crane_merge.py's router formula. A recipe promises a bit-identical rebuild, so
 * an older SLERP recipe is refused by name rather than silently rebuilt with the other formula.
 * Every other method computes as before.
 *
 * Version 1 already named methods as today (method, task_arithmetic,
 * dropProbability, granularity, stages.gate); its CRANE settings differ:
 *
 *   overrides {blockKey: S}            → overrideScales
 *   steepness optional (4.6/τ)         → always written
 *   thinkStrength?, lmHeadScale?       → special { thinkRows, lmHeadScale, routerAlphaFraction }
 *   (routers were fixed at t = α/3)    → routerAlphaFraction 1/3
 *
 * Absent values take the defaults version 1 applied. Values are not checked here; the schema does that.
 */
import { CheckpointError } from '../io/checkpoint-error.ts';
import { isJsonObject, type JsonObject } from '../io/json-object.ts';
import { defaultSteepness } from '../protocol/gsp-mask.ts';
import { DEFAULT_SPECIAL_TENSORS } from '../protocol/settings-defaults.ts';

function craneSettingsV1(settings: JsonObject): JsonObject {
  const { overrides, thinkStrength, lmHeadScale, steepness, ...rest } = settings;
  return {
    ...rest,
    steepness: steepness ?? (typeof rest.tau === 'number' ? defaultSteepness(rest.tau) : undefined),
    special: {
      thinkRows: thinkStrength ?? DEFAULT_SPECIAL_TENSORS.thinkRows,
      lmHeadScale: lmHeadScale ?? DEFAULT_SPECIAL_TENSORS.lmHeadScale,
      routerAlphaFraction: DEFAULT_SPECIAL_TENSORS.routerAlphaFraction,
    },
    overrideScales: overrides,
  };
}

export function migrateRecipe(json: unknown, file: string): unknown {
  if (!isJsonObject(json)) return json;
  if (json.formatVersion === 3) return { ...json, formatVersion: 4, importance: null };
  if (json.formatVersion !== 1 && json.formatVersion !== 2) return json;
  const { method } = json;
  if (isJsonObject(method) && method.method === 'slerp') {
    throw new CheckpointError('metadata', file, `is a version ${String(json.formatVersion)} SLERP recipe, made with crane_merge.py's router formula; this engine's SLERP follows the reference baseline (baseline/slerp.py), so it cannot rebuild that export bit for bit — export the SLERP merge again`);
  }
  const migrated = json.formatVersion === 1 && isJsonObject(method) && method.method === 'crane' && isJsonObject(method.settings)
    ? { ...method, settings: craneSettingsV1(method.settings) }
    : method;
  return { ...json, formatVersion: 4, method: migrated, importance: null };
}
