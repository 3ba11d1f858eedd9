/**
 * Command-line flags → the engine's settings types, shared by `crane preview`, `verify` and
 * `merge` (each command owns one file in engine/cli; the flag parsing they share lives here).
 *
 *   EDIT_FLAGS                      parseArgs option specs of every edit flag
 *   craneSettingsFromFlags(values, tokens) → CraneSettings
 *   editMethodFromFlags(values, tokens, magnitudes?) → EditMethod
 *   parseByteSize('5GB') → bytes;   exportDtypeFromFlag('bf16') → 'BF16'
 *
 * Names follow the protocol's merge methods (task-arithmetic, ties, slerp, dare, aim, crane).
 * --alpha is the strength of every method: α for CRANE, λ for Task Arithmetic/TIES/DARE/AIM,
 * t for SLERP. Defaults follow the spec: α 0.25 for CRANE, 0.30 for the baselines.
 */
import { UsageError } from './command.ts';
import { DEFAULT_AIM_OMEGA } from '../crane/aim.ts';
import { DEFAULT_TIES_DENSITY } from '../crane/baselines.ts';
import type { CraneSettings } from '../crane/crane-edit.ts';
import { DEFAULT_TAU } from '../crane/gsp-projector.ts';
import { DEFAULT_KEEP_QUANTILE } from '../crane/magnitude-threshold.ts';
import type { TokenRows } from '../crane/special-tensors.ts';
import type { ExportDtype } from '../export/recipe.ts';
import { aimImportance, type EditMethod } from '../pipeline/edit-method.ts';

export const EDIT_FLAGS = {
  method: { type: 'string' },
  alpha: { type: 'string' },
  q: { type: 'string' },
  tau: { type: 'string' },
  k: { type: 'string' },
  'no-threshold': { type: 'boolean' },
  'no-gate': { type: 'boolean' },
  'no-gsp': { type: 'boolean' },
  fine: { type: 'boolean' },
  override: { type: 'string', multiple: true },
  density: { type: 'string' },
  drop: { type: 'string' },
  seed: { type: 'string' },
  omega: { type: 'string' },
} as const;

export const EDIT_FLAGS_HELP = `Edit settings:
  --method M        crane (default) | task-arithmetic | ties | slerp | dare | aim
  --alpha A         strength: CRANE α (default 0.25); λ of the baselines, t of SLERP (default 0.3)
  --q Q             CRANE stage-1 keep quantile (default 0.5; survivors ×1/(1−q))
  --tau T           GSP sigmoid centre τ (default 0.03)
  --k K             GSP sigmoid steepness (default 4.6/τ)
  --no-threshold    skip stage 1 (raw δ)
  --no-gate         S = 1 everywhere (overrides still apply)
  --no-gsp          no projection
  --fine            one gate block per projection (q, k, v, o, gate, up, down) instead of per group
  --override K=S    set S of one block by hand, e.g. attention@3=0.5, ffn.up@1=0, norm@*=1 (repeatable)
  --density D       TIES density (default 0.5)
  --drop P          DARE drop probability (default 0.5)
  --seed N          DARE seed (default 0)
  --omega W         AIM ω (default 0.4)`;

export type EditFlagValues = { [K in keyof typeof EDIT_FLAGS]?: (typeof EDIT_FLAGS)[K]['type'] extends 'boolean' ? boolean : K extends 'override' ? string[] : string };

export function craneSettingsFromFlags(values: EditFlagValues, tokens: TokenRows): CraneSettings {
  const tau = number(values.tau, '--tau', DEFAULT_TAU, (v) => v > 0 && v < 1);
  const settings: CraneSettings = {
    alpha: number(values.alpha, '--alpha', 0.25, (v) => v >= 0),
    keepQuantile: number(values.q, '--q', DEFAULT_KEEP_QUANTILE, (v) => v >= 0 && v < 1),
    tau,
    stages: { threshold: values['no-threshold'] !== true, gate: values['no-gate'] !== true, gsp: values['no-gsp'] !== true },
    granularity: values.fine === true ? 'fine' : 'coarse',
    overrides: overrides(values.override ?? []),
    tokens,
  };
  return values.k === undefined ? settings : { ...settings, steepness: number(values.k, '--k', 4.6 / tau, (v) => v > 0) };
}

export function editMethodFromFlags(values: EditFlagValues, tokens: TokenRows, magnitudes?: ReadonlyMap<string, Float64Array>): EditMethod {
  const strength = () => number(values.alpha, '--alpha', 0.3, (v) => v >= 0);
  switch (values.method ?? 'crane') {
    case 'crane': return { method: 'crane', settings: craneSettingsFromFlags(values, tokens) };
    case 'task-arithmetic': return { method: 'task_arithmetic', lambda: strength() };
    case 'ties': return { method: 'ties', lambda: strength(), density: number(values.density, '--density', DEFAULT_TIES_DENSITY, (v) => v > 0 && v <= 1) };
    case 'slerp': return { method: 'slerp', t: strength() };
    case 'dare': return {
      method: 'dare', lambda: strength(),
      dropProbability: number(values.drop, '--drop', 0.5, (v) => v >= 0 && v < 1),
      seed: number(values.seed, '--seed', 0, (v) => Number.isInteger(v) && v >= 0),
    };
    case 'aim':
      if (magnitudes === undefined) throw new UsageError('--method aim needs the input magnitudes of an analysis (--analysis DIR)');
      return { method: 'aim', lambda: strength(), omega: number(values.omega, '--omega', DEFAULT_AIM_OMEGA, (v) => v >= 0 && v <= 1), importance: aimImportance(magnitudes) };
    default: throw new UsageError(`--method must be crane, task-arithmetic, ties, slerp, dare or aim, got "${values.method}"`);
  }
}

const DTYPES: Record<string, ExportDtype> = { source: 'source', bf16: 'BF16', f16: 'F16', f32: 'F32' };

export function exportDtypeFromFlag(value: string | undefined): ExportDtype {
  const dtype = DTYPES[(value ?? 'source').toLowerCase()];
  if (dtype === undefined) throw new UsageError(`--dtype must be source, bf16, f16 or f32, got "${value}"`);
  return dtype;
}

const UNITS: Record<string, number> = { '': 1, B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3, TIB: 1024 ** 4 };

/** "5GB" (decimal, as Hugging Face's max_shard_size), "512MiB", "1000000". */
export function parseByteSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]?I?B?)\s*$/i.exec(text);
  const unit = m === null ? undefined : UNITS[(m[2] ?? '').toUpperCase()];
  const bytes = m === null || unit === undefined ? Number.NaN : Math.floor(Number(m[1]) * unit);
  if (!(bytes >= 1)) throw new UsageError(`--shard-size must be a size such as 5GB or 512MiB, got "${text}"`);
  return bytes;
}

function overrides(items: readonly string[]): Map<string, number> {
  return new Map(items.map((item) => {
    const m = /^([a-z_]+(?:\.[\w]+)?@(?:\d+|\*))=(.+)$/.exec(item);
    const value = m === null ? Number.NaN : Number(m[2]);
    if (m === null || !Number.isFinite(value)) throw new UsageError(`--override must look like attention@3=0.5 or ffn.up@*=0, got "${item}"`);
    return [m[1] as string, value];
  }));
}

function number(text: string | undefined, flag: string, fallback: number, valid: (v: number) => boolean): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || !valid(value)) throw new UsageError(`${flag} got an invalid value "${text}"`);
  return value;
}
