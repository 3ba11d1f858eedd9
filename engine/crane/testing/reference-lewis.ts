/**
 * An independent, plain formulation of the reference's LEWIS (baseline/_lewis.py + lewis.py +
 * ties.py) for cross-checking the engine in tests. It shares no code with engine/crane: module
 * names are split with string operations instead of regular expressions, buckets live in plain
 * records, TIES takes its threshold from a full sort and runs all three steps (trim, elect sign,
 * disjoint merge) element by element, and float32 rounding is spelled out with Math.fround.
 */

/** [layer, projection] of "…model.layers.N.rest", experts.K. → experts., or null. */
function splitModule(name: string): [string, string] | null {
  const marker = 'model.layers.';
  let at = name.indexOf(marker);
  while (at >= 0) {
    const afterMarker = name.slice(at + marker.length);
    const dot = afterMarker.indexOf('.');
    const layer = afterMarker.slice(0, dot);
    if (dot > 0 && [...layer].every((ch) => ch >= '0' && ch <= '9')) {
      const parts = afterMarker.slice(dot + 1).split('.');
      const kept: string[] = [];
      for (let i = 0; i < parts.length; i++) {
        kept.push(parts[i] as string);
        const next = parts[i + 1];
        if ((parts[i] as string).endsWith('experts') && next !== undefined && next !== '' && i + 2 < parts.length && [...next].every((ch) => ch >= '0' && ch <= '9')) i++;
      }
      return [layer, kept.join('.')];
    }
    at = name.indexOf(marker, at + 1);
  }
  return null;
}

export function referenceSchedule(base: Record<string, number>, target: Record<string, number>, gamma: number, epsilon: number): Record<string, number> {
  const lists: Record<string, { layer: string; projection: string; deltas: number[] }> = {};
  for (const name of Object.keys(target)) {
    if (!(name in base)) continue;
    const split = splitModule(name);
    if (split === null) continue;
    const key = `${split[0]}|${split[1]}`;
    lists[key] ??= { layer: split[0], projection: split[1], deltas: [] };
    lists[key].deltas.push(Math.abs((target[name] as number) - (base[name] as number)));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const sums: Record<string, number> = {};
  for (const entry of Object.values(lists)) sums[entry.projection] = (sums[entry.projection] ?? 0) + mean(entry.deltas);
  const normalized: Record<string, number> = {};
  for (const [key, entry] of Object.entries(lists)) {
    const sum = sums[entry.projection] as number;
    normalized[key] = sum <= 0 ? 0 : Math.min(1, Math.max(0, mean(entry.deltas) / sum));
  }
  const sorted = Object.values(normalized).sort((a, b) => a - b);
  const low = sorted[0] as number;
  const high = sorted[sorted.length - 1] as number;
  const schedule: Record<string, number> = {};
  for (const [key, v] of Object.entries(normalized)) {
    schedule[key] = high - low <= 1e-12 ? (gamma + epsilon) / 2 : gamma + ((v - low) * (epsilon - gamma)) / (high - low);
  }
  return schedule;
}

/** make_density_lookup: a ".weight" of a scheduled bucket gets its density, everything else the default. */
export function referenceDensity(schedule: Record<string, number>, defaultDensity: number, tensorName: string): number {
  if (!tensorName.endsWith('.weight')) return defaultDensity;
  const split = splitModule(tensorName.slice(0, tensorName.length - 7));
  if (split === null) return defaultDensity;
  return schedule[`${split[0]}|${split[1]}`] ?? defaultDensity;
}

/** float32(θ_I + float32(α · merge(elect(trim(δ))))) with one task vector, per element. */
export function referenceLewisTies(thetaI: readonly number[], thetaT: readonly number[], density: number, alpha: number): number[] {
  const delta = thetaI.map((v, i) => Math.fround((thetaT[i] as number) - v));
  const n = delta.length;
  const k = Math.floor(n * density);
  const descending = delta.map(Math.abs).sort((a, b) => b - a);
  const trimmed = delta.map((d) => (density >= 1 ? d : k <= 0 ? 0 : Math.abs(d) >= (descending[k - 1] as number) ? d : 0));
  const elected = trimmed.map(Math.sign);
  const merged = trimmed.map((d, i) => {
    const agrees = Math.sign(d) === elected[i] && d !== 0;
    const count = Math.max(1, agrees ? 1 : 0); // the reference's count.clamp(min=1)
    return (agrees ? d : 0) / count;
  });
  return thetaI.map((v, i) => Math.fround(v + Math.fround(alpha * (merged[i] as number))));
}

/**
 * lewis_importance.py from raw activations: tokens[t][j] is x_j at token t (every prompt's tokens
 * pooled), weight[i][j] the Linear's weight. sqrt of the Frobenius norm² of W scaled column-wise by
 * sqrt(E[x_j²]), written as that product rather than as a weighted sum.
 */
export function referenceWandaImportance(weight: readonly (readonly number[])[], tokens: readonly (readonly number[])[]): number {
  const columns = weight[0]?.length ?? 0;
  const rms = Array.from({ length: columns }, (_, j) => Math.sqrt(tokens.reduce((s, x) => s + (x[j] as number) ** 2, 0) / tokens.length));
  const scaled = weight.map((row) => row.map((w, j) => w * (rms[j] as number)));
  return Math.hypot(...scaled.flat());
}
