/**
 * Command-line flags → the protocol's settings (protocol/settings-schemas.ts: one vocabulary and
 * one set of ranges for the CLI, the engine, the recipe and the UI), shared by `crane preview`,
 * `verify` and `merge`.
 *
 *   EDIT_FLAGS                      parseArgs option specs of every edit flag
 *   craneSettingsFromFlags(values, tokens) → ResolvedCraneSettings
 *   editMethodFromFlags(values, tokens, magnitudes?) → EditMethod
 *   parseByteSize('5GB') → bytes;   exportDtypeFromFlag('bf16') → 'BF16'
 *
 * --method takes the protocol's method names (crane, task_arithmetic, ties, slerp, dare, aim).
 * --alpha is the strength of every method: α for CRANE, λ for Task Arithmetic/TIES/DARE/AIM,
 * t for SLERP. Defaults are protocol/settings-defaults.ts's: α 0.25 for CRANE, 0.30 for the
 * baselines. A value out of range is refused by the protocol's schema, naming the flag.
 */
import type { z } from 'zod';
import { defaultSteepness, DEFAULT_TAU } from '../protocol/gsp-mask.ts';
import { DEFAULT_ALPHA, DEFAULT_BASELINES, DEFAULT_CRANE_SETTINGS, DEFAULT_EDIT_ARITHMETIC, DEFAULT_KEEP_QUANTILE } from '../protocol/settings-defaults.ts';
import {
  aimSchema, blockKeySchema, dareSchema, editArithmeticSchema, resolvedCraneSettingsSchema, slerpSchema, taskArithmeticSchema, tiesSchema,
  type EditArithmetic, type ProtectedTokenEdits, type ResolvedCraneSettings, type TokenRows,
} from '../protocol/settings-schemas.ts';
import { applyProtectedEdits, parseProtectedEdits } from '../protocol/protected-tokens.ts';
import { UsageError } from './command.ts';
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
  'protect-ids': { type: 'string' },
  arith: { type: 'string' },
  density: { type: 'string' },
  drop: { type: 'string' },
  seed: { type: 'string' },
  omega: { type: 'string' },
} as const;

const { ties, dare, aim } = DEFAULT_BASELINES;

export const EDIT_FLAGS_HELP = `Edit settings:
  --method M        crane (default) | task_arithmetic | ties | slerp | dare | aim
  --alpha A         strength: CRANE α (default ${DEFAULT_ALPHA}); λ of the baselines, t of SLERP (default ${ties.lambda})
  --q Q             CRANE stage-1 keep quantile (default ${DEFAULT_KEEP_QUANTILE}; survivors ×1/(1−q))
  --tau T           GSP sigmoid centre τ (default ${DEFAULT_TAU})
  --k K             GSP sigmoid steepness (default 4.6/τ)
  --no-threshold    skip stage 1 (raw δ)
  --no-gate         S = 1 everywhere (overrides still apply)
  --no-gsp          no projection
  --fine            one gate block per projection (q, k, v, o, gate, up, down) instead of per group
  --override K=S    set S of one block by hand, e.g. attention@3=0.5, ffn.up@1=0, norm@*=1 (repeatable)
  --protect-ids E   lm_head rows kept at θ_I beyond Instruct's added tokens but <think>/</think>:
                    +ID protects a row, -ID releases one, e.g. +151669,-151650
  --arith A         CRANE working arithmetic: f32 (default) | reference (bf16 at every step as the
                    reference's crane_merge.py, to reproduce a released CRANE checkpoint)
  --density D       TIES density (default ${ties.density})
  --drop P          DARE drop probability (default ${dare.dropProbability})
  --seed N          DARE seed (default ${dare.seed})
  --omega W         AIM ω (default ${aim.omega})`;

export type EditFlagValues = { [K in keyof typeof EDIT_FLAGS]?: (typeof EDIT_FLAGS)[K]['type'] extends 'boolean' ? boolean : K extends 'override' ? string[] : string };

/** The flag each settings field comes from, for error messages. */
const FLAG_OF: Record<string, string> = {
  alpha: '--alpha', lambda: '--alpha', t: '--alpha', keepQuantile: '--q', tau: '--tau', steepness: '--k',
  overrideScales: '--override', protectedTokens: '--protect-ids', density: '--density', dropProbability: '--drop', seed: '--seed', omega: '--omega',
};

/** `tokens` are Instruct's tokenizer rows; --protect-ids edits the protected ones. */
export function craneSettingsFromFlags(values: EditFlagValues, tokens: TokenRows): ResolvedCraneSettings {
  const tau = number(values.tau, '--tau') ?? DEFAULT_TAU;
  const protectedTokens = protectedEdits(values['protect-ids']);
  return checked(resolvedCraneSettingsSchema, {
    alpha: number(values.alpha, '--alpha') ?? DEFAULT_ALPHA,
    keepQuantile: number(values.q, '--q') ?? DEFAULT_KEEP_QUANTILE,
    tau,
    steepness: number(values.k, '--k') ?? defaultSteepness(tau),
    stages: { threshold: values['no-threshold'] !== true, gate: values['no-gate'] !== true, gsp: values['no-gsp'] !== true },
    granularity: values.fine === true ? 'fine' : 'coarse',
    special: protectedTokens === undefined ? DEFAULT_CRANE_SETTINGS.special : { ...DEFAULT_CRANE_SETTINGS.special, protectedTokens },
    arith: editArithmetic(values.arith),
    overrideScales: overrideScales(values.override ?? []),
    tokens: { think: tokens.think, special: applyProtectedEdits(tokens.special, protectedTokens) },
  });
}

export function editMethodFromFlags(values: EditFlagValues, tokens: TokenRows, magnitudes?: ReadonlyMap<string, Float64Array>): EditMethod {
  const lambda = number(values.alpha, '--alpha');
  switch (values.method ?? 'crane') {
    case 'crane': return { method: 'crane', settings: craneSettingsFromFlags(values, tokens) };
    case 'task_arithmetic': return checked(taskArithmeticSchema, { ...DEFAULT_BASELINES.task_arithmetic, ...(lambda === undefined ? {} : { lambda }) });
    case 'ties': return checked(tiesSchema, { ...ties, ...(lambda === undefined ? {} : { lambda }), density: number(values.density, '--density') ?? ties.density });
    case 'slerp': return checked(slerpSchema, { ...DEFAULT_BASELINES.slerp, ...(lambda === undefined ? {} : { t: lambda }) });
    case 'dare': return checked(dareSchema, {
      ...dare, ...(lambda === undefined ? {} : { lambda }),
      dropProbability: number(values.drop, '--drop') ?? dare.dropProbability,
      seed: number(values.seed, '--seed') ?? dare.seed,
    });
    case 'aim': {
      if (magnitudes === undefined) throw new UsageError('--method aim needs the input magnitudes of an analysis (--analysis DIR)');
      const settings = checked(aimSchema, { ...aim, ...(lambda === undefined ? {} : { lambda }), omega: number(values.omega, '--omega') ?? aim.omega });
      return { ...settings, importance: aimImportance(magnitudes) };
    }
    default: throw new UsageError(`--method must be crane, task_arithmetic, ties, slerp, dare or aim, got "${values.method}"`);
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

function overrideScales(items: readonly string[]): Record<string, number> {
  const scales: Record<string, number> = {};
  for (const item of items) {
    const m = /^([^=]+)=(.+)$/.exec(item);
    const value = m === null ? undefined : number(m[2], '--override');
    if (m === null || value === undefined || !blockKeySchema.safeParse(m[1]).success) throw new UsageError(`--override must look like attention@3=0.5 or ffn.up@*=0, got "${item}"`);
    scales[m[1] as string] = value;
  }
  return scales;
}

function editArithmetic(text: string | undefined): EditArithmetic {
  if (text === undefined) return DEFAULT_EDIT_ARITHMETIC;
  const parsed = editArithmeticSchema.safeParse(text);
  if (!parsed.success) throw new UsageError(`--arith must be f32 or reference, got "${text}"`);
  return parsed.data;
}

function protectedEdits(text: string | undefined): ProtectedTokenEdits | undefined {
  if (text === undefined) return undefined;
  try {
    return parseProtectedEdits(text);
  } catch (error) {
    throw new UsageError(`--protect-ids: ${(error as Error).message}`);
  }
}

/** A number, undefined when the flag is absent; text that is not a finite number is refused. */
function number(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`${flag} got an invalid value "${text}"`);
  return value;
}

/** The settings, validated by the protocol's schema; a range error names the flag. */
function checked<S extends z.ZodType>(schema: S, settings: z.input<S>): z.output<S> {
  const parsed = schema.safeParse(settings);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.find((key): key is string => typeof key === 'string' && key in FLAG_OF) ?? '';
  throw new UsageError(`${FLAG_OF[field] ?? 'a setting'} is out of range: ${issue?.message ?? 'invalid'}`);
}
