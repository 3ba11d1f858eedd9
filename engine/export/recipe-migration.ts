/**
 * crane_recipe.json version 1 → the current version, in one place (parseRecipe calls it before
 * validating). Version 1 already named methods as today (method, task_arithmetic,
 * dropProbability, granularity, stages.gate); its CRANE settings differ:
 *
 *   overrides {blockKey: S}            → overrideScales
 *   steepness optional (4.6/τ)         → always written
 *   thinkStrength?, lmHeadScale?       → special { thinkRows, lmHeadScale, routerAlphaFraction }
 *   (routers were fixed at t = α/3)    → routerAlphaFraction 1/3
 *
 * Absent values take the defaults version 1 applied. Values are not checked here; the schema does that.
 */
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

export function migrateRecipe(json: unknown): unknown {
  if (!isJsonObject(json) || json.formatVersion !== 1) return json;
  const { method } = json;
  const migrated = isJsonObject(method) && method.method === 'crane' && isJsonObject(method.settings)
    ? { ...method, settings: craneSettingsV1(method.settings) }
    : method;
  return { ...json, formatVersion: 2, method: migrated };
}
