/**
 * Older project.json versions → the current one, in one place (the reader calls it before
 * validating, so everything after it sees one vocabulary).
 *
 *   migrateProject(json) → json at PROJECT_FORMAT_VERSION (unchanged when it already is, or is not an object)
 *
 * v1 → v2: the settings vocabulary became one (protocol/settings-schemas.ts): stages.ctg → gate,
 * grouping → granularity, and in merge methods kind → method, 'task-arithmetic' →
 * 'task_arithmetic', dropRate → dropProbability. Values are not checked here; the schema does that.
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

export function migrateProject(json: unknown): unknown {
  if (!isJsonObject(json) || json.formatVersion !== 1) return json;
  return { ...json, formatVersion: 2, settings: settingsV1(json.settings), verified: withMethod(json.verified), exports: withMethod(json.exports) };
}
