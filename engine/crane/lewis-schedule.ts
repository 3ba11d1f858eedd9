/**
 * LEWIS's per-(layer, projection) TIES density schedule, as the reference builds it
 * (baseline/_lewis.py build_density_schedule, arXiv:2503.03874).
 *
 *   lewisDensitySchedule(base, target, γ, ε) → LewisSchedule   bucket "layer|projection" → density
 *   lewisDensityOf(schedule, defaultDensity) → (tensor name) → density
 *   lewisBucketOf(moduleName) → "layer|projection" | null
 *
 * The importances are one scalar per transformer-block Linear (module name, no ".weight"), base =
 * the Instruct model, target = the Thinking model, as the reference's lewis.py names them. Steps:
 *   1. Δ(l, c) = |I_target − I_base| per module the two files share; MoE experts of one
 *      projection collapse to their mean (the paper assumes one scalar per projection).
 *   2. per projection c, Δ(l, c) / Σ_l Δ(l, c), clipped to [0, 1]; a projection whose Δ sum is ≤ 0
 *      gets 0 in every layer (the reference's comment says "midpoint", its code writes 0: we follow
 *      the code, which is what its merges ran with).
 *   3. global min-max of those values onto [γ, ε]; when max − min ≤ 1e-12 every bucket gets the
 *      midpoint (γ + ε)/2, so the merge is constant-density TIES.
 * Tensors outside the schedule (embeddings, lm_head, norms, biases, never-routed experts) take the
 * default density, 0.5 in the reference.
 */

export type LewisImportance = ReadonlyMap<string, number>;
export type LewisSchedule = ReadonlyMap<string, number>;

/** Below this spread the normalized Δs are treated as all equal (the reference's 1e-12). */
const DEGENERATE_SPREAD = 1e-12;
const LAYER_PATTERN = /model\.layers\.(\d+)\./;
const EXPERT_PATTERN = /experts\.\d+\./g;

/** "layer|projection" with experts.K. collapsed to experts., or null outside model.layers.N. */
export function lewisBucketOf(moduleName: string): string | null {
  const match = LAYER_PATTERN.exec(moduleName);
  if (match === null) return null;
  const projection = moduleName.slice(match.index + match[0].length).replace(EXPERT_PATTERN, 'experts.');
  return `${match[1] as string}|${projection}`;
}

function checkLewisRange(gamma: number, epsilon: number): void {
  if (!(gamma >= 0 && gamma <= epsilon && epsilon <= 1)) {
    throw new RangeError(`LEWIS needs 0 ≤ γ ≤ ε ≤ 1, got γ=${gamma}, ε=${epsilon}`);
  }
}

export function lewisDensitySchedule(base: LewisImportance, target: LewisImportance, gamma: number, epsilon: number): LewisSchedule {
  checkLewisRange(gamma, epsilon);
  const perBucket = bucketDeltas(base, target);
  if (perBucket.size === 0) throw new Error('LEWIS: the base and fine-tuned importance files share no (layer, projection) module');
  const normalized = normalizePerProjection(perBucket);
  const values = [...normalized.values()];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const schedule = new Map<string, number>();
  for (const [bucket, v] of normalized) {
    schedule.set(bucket, high - low <= DEGENERATE_SPREAD ? 0.5 * (gamma + epsilon) : gamma + (v - low) * ((epsilon - gamma) / (high - low)));
  }
  return schedule;
}

/** The density TIES uses for a tensor: its bucket's, or the default for weights outside the schedule and every non-weight. */
export function lewisDensityOf(schedule: LewisSchedule, defaultDensity: number): (tensorName: string) => number {
  if (!(defaultDensity >= 0 && defaultDensity <= 1)) throw new RangeError(`LEWIS default density ${defaultDensity} must be in [0, 1]`);
  return (tensorName) => {
    if (!tensorName.endsWith('.weight')) return defaultDensity;
    const bucket = lewisBucketOf(tensorName.slice(0, -'.weight'.length));
    return (bucket === null ? undefined : schedule.get(bucket)) ?? defaultDensity;
  };
}

/** Mean |I_target − I_base| per bucket over the modules both files have. */
function bucketDeltas(base: LewisImportance, target: LewisImportance): Map<string, number> {
  const sums = new Map<string, { total: number; count: number }>();
  for (const [moduleName, importanceTarget] of target) {
    const importanceBase = base.get(moduleName);
    if (importanceBase === undefined) continue;
    for (const [role, v] of [['fine-tuned', importanceTarget], ['base', importanceBase]] as const) {
      if (!Number.isFinite(v)) throw new RangeError(`LEWIS: the ${role} importance of ${moduleName} is ${v}, not a finite number`);
    }
    const bucket = lewisBucketOf(moduleName);
    if (bucket === null) continue;
    const entry = sums.get(bucket) ?? { total: 0, count: 0 };
    entry.total += Math.abs(importanceTarget - importanceBase);
    entry.count += 1;
    sums.set(bucket, entry);
  }
  return new Map([...sums].map(([bucket, { total, count }]) => [bucket, total / count]));
}

/** Δ(l, c) / Σ_l Δ(l, c) clipped to [0, 1]; 0 throughout a projection whose Δs sum to ≤ 0. */
function normalizePerProjection(perBucket: ReadonlyMap<string, number>): Map<string, number> {
  const projectionTotals = new Map<string, number>();
  const projectionOf = (bucket: string) => bucket.slice(bucket.indexOf('|') + 1);
  for (const [bucket, d] of perBucket) projectionTotals.set(projectionOf(bucket), (projectionTotals.get(projectionOf(bucket)) ?? 0) + d);
  const normalized = new Map<string, number>();
  for (const [bucket, d] of perBucket) {
    const total = projectionTotals.get(projectionOf(bucket)) as number;
    normalized.set(bucket, total <= 0 ? 0 : Math.max(0, Math.min(1, d / total)));
  }
  return normalized;
}

/** The two importance files a LEWIS merge is scheduled from: base = Instruct, fine-tuned = Thinking. */
export interface LewisImportances {
  readonly base: LewisImportance;
  readonly tuned: LewisImportance;
}

/** LEWIS settings with the per-tensor density baselineEdit applies. */
export function lewisEditSettings<S extends { readonly gamma: number; readonly epsilon: number; readonly defaultDensity: number }>(
  settings: S, importances: LewisImportances,
): S & { readonly densityOf: (name: string) => number } {
  const schedule = lewisDensitySchedule(importances.base, importances.tuned, settings.gamma, settings.epsilon);
  return { ...settings, densityOf: lewisDensityOf(schedule, settings.defaultDensity) };
}
