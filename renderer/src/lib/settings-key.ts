/**
 * The identity of the settings a result was computed for. Every result the studio shows (the
 * preview, a Verify measurement) is compared by this key with the settings on screen now: equal
 * keys mean "this result is about what you see", anything else is "from other settings".
 *
 *   settingsKey(value) → canonical JSON (object keys sorted, overrides sorted by block)
 *   shortHash(key) → 8 hex digits (FNV-1a), what the views print next to a result
 */
import type { BlockOverride, CraneSettings, MergeMethod } from '../protocol.ts';

const compareOverrides = (a: BlockOverride, b: BlockOverride) => a.block.layer - b.block.layer || a.block.group.localeCompare(b.block.group);

/** Overrides are a set (their order is the order they were touched in), so they are sorted first. */
function normalised(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalised);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => [k, k === 'overrides' && Array.isArray(v) ? normalised([...(v as BlockOverride[])].sort(compareOverrides)) : normalised(v)]);
  return Object.fromEntries(entries);
}

export function settingsKey(value: CraneSettings | MergeMethod): string {
  return JSON.stringify(normalised(value));
}

export function shortHash(key: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}
