/**
 * Older project.json versions → the current one, in one place (the reader calls it before
 * validating, so everything after it sees one vocabulary).
 *
 *   migrateProject(json) → json at PROJECT_FORMAT_VERSION (unchanged when it already is, or is not an object)
 *
 * v1 → v2: the settings vocabulary became one (protocol/settings-schemas.ts): stages.ctg → gate,
 * grouping → granularity, and in merge methods kind → method, 'task-arithmetic' →
 * 'task_arithmetic', dropRate → dropProbability. Values are not checked here; the schema does that.
 *
 * v2 → v3: the gradients use the whole calibration set unless asked otherwise, and Verify names
 * where it measures: analysis.heldOutFraction f became analysis.evaluation (held-out f when
 * f > 0, else the calibration sets — the file's choice is kept, not reset to the new default),
 * and each verified point gains measuredOn, the held-out split it was measured on (v2 measured
 * only there).
 *
 * v3 → v4: a project may name a Base checkpoint (RAIN's τ = Instruct − Base); a v3 project has
 * none (base: null). Bumped so that an older engine refuses a file with a Base by its version
 * rather than by an unknown key.
 */
import { isJsonObject, type JsonObject } from '../io/json-object.ts';

/** `from` renamed `to`, where present. */
function renamed(object: JsonObject, from: string, to: string): JsonObject {
  if (!Object.hasOwn(object, from)) return object;
  const { [from]: value, ...rest } = object;
  return { ...rest, [to]: value };
}

function settingsV1(settings: unknown): unknown {
  if (!isJsonObject(settings)) return settings;
  const moved = renamed(settings, 'grouping', 'granularity');
  return isJsonObject(moved.stages) ? { ...moved, stages: renamed(moved.stages, 'ctg', 'gate') } : moved;
}

function methodV1(method: unknown): unknown {
  if (!isJsonObject(method)) return method;
  const moved = renamed(renamed(method, 'kind', 'method'), 'dropRate', 'dropProbability');
  if (moved.method === 'task-arithmetic') return { ...moved, method: 'task_arithmetic' };
  return moved.method === 'crane' ? { ...moved, settings: settingsV1(moved.settings) } : moved;
}

const withMethod = (entries: unknown): unknown =>
  Array.isArray(entries) ? entries.map((entry) => (isJsonObject(entry) ? { ...entry, method: methodV1(entry.method) } : entry)) : entries;

function fromV1(json: JsonObject): JsonObject {
  return { ...json, formatVersion: 2, settings: settingsV1(json.settings), verified: withMethod(json.verified), exports: withMethod(json.exports) };
}

/** v2's held-out share (0.25 was its default, so a verified point without an analysis had it). */
function heldOutShareV2(analysis: unknown): number {
  return isJsonObject(analysis) && typeof analysis.heldOutFraction === 'number' ? analysis.heldOutFraction : 0.25;
}

function fromV2(json: JsonObject): JsonObject {
  const share = heldOutShareV2(json.analysis);
  const analysis = isJsonObject(json.analysis)
    ? { ...withoutKey(json.analysis, 'heldOutFraction'), evaluation: share > 0 ? { source: 'held-out', fraction: share } : { source: 'calibration' } }
    : json.analysis;
  const verified = Array.isArray(json.verified)
    ? json.verified.map((point) => (isJsonObject(point) ? { ...point, measuredOn: { source: 'held-out', fraction: share > 0 ? share : 0.25 } } : point))
    : json.verified;
  return { ...json, formatVersion: 3, analysis, verified };
}

function withoutKey(object: JsonObject, key: string): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([name]) => name !== key));
}

export function migrateProject(json: unknown): unknown {
  if (!isJsonObject(json)) return json;
  const v2 = json.formatVersion === 1 ? fromV1(json) : json;
  const v3 = v2.formatVersion === 2 ? fromV2(v2) : v2;
  return v3.formatVersion === 3 ? { ...v3, formatVersion: 4, base: null } : v3;
}
