/**
 * Command-line flags → the protocol's settings (protocol/settings-schemas.ts: one vocabulary and
 * one set of ranges for the CLI, the engine, the recipe and the UI), shared by `crane preview`,
 * `verify` and `merge`.
 *
 *   EDIT_FLAGS                      parseArgs option specs of every edit flag
 *   craneSettingsFromFlags(values, tokens) → ResolvedCraneSettings
 *   methodSettingsFromFlags(values, tokens) → the method's settings, as a recipe holds them
 *   await methodSettingsWithTokenRows(values, tokenRows) → the same, tokenRows() called for CRANE only
 *   editMethodFromFlags(values, tokens, importance?, lewis?) → EditMethod
 *   editMethodOf(settings, importance?, lewis?) → EditMethod   of settings already read
 *   parseByteSize('5GB', '--shard-size') → bytes;   exportDtypeFromFlag('bf16') → 'BF16'
 *
 * --method takes the protocol's method names (crane, task_arithmetic, ties, slerp, dare, aim, aim_ties).
 * --alpha is the strength of every method: α for CRANE, λ for Task Arithmetic/TIES/DARE/AIM,
 * t for SLERP. Defaults are protocol/settings-defaults.ts's: α 0.25 for CRANE, 0.30 for the
 * baselines. A value out of range is refused by the protocol's schema, naming the flag.
 */
import type { z } from 'zod';
import { defaultSteepness, DEFAULT_TAU } from '../protocol/gsp-mask.ts';
import { DEFAULT_BASELINES, DEFAULT_CRANE_SETTINGS, defaultResolvedSettings } from '../protocol/settings-defaults.ts';
import { isMethodName, METHOD_NAMES, METHODS, parametersOf, type MethodParameter } from '../protocol/method-parameters.ts';
import {
  blockKeySchema, resolvedCraneSettingsSchema,
  type BaselineMethod, type MergeMethodName, type ProtectedTokenEdits, type RainSettings, type ResolvedCraneSettings, type TokenRows,
} from '../protocol/settings-schemas.ts';
import { applyProtectedEdits, parseProtectedEdits } from '../protocol/protected-tokens.ts';
import { UsageError } from './command.ts';
import type { ExportDtype } from '../export/recipe.ts';
import { aimImportanceOf, isAimMethod } from '../crane/aim.ts';
import type { EditMethod } from '../pipeline/edit-method.ts';
import { lewisEditSettings, type LewisImportances } from '../crane/lewis-schedule.ts';

/** The flags of CRANE's own controls (not parameters of the methods table). */
const CRANE_CONTROL_FLAGS = {
  method: { type: 'string' },
  'no-threshold': { type: 'boolean' },
  'no-gate': { type: 'boolean' },
  'no-gsp': { type: 'boolean' },
  fine: { type: 'boolean' },
  override: { type: 'string', multiple: true },
  'protect-ids': { type: 'string' },
} as const;

/** Every parameter of every method, one string flag each (methods share --alpha). */
const PARAMETER_FLAGS: Readonly<Record<string, { readonly type: 'string' }>> = Object.fromEntries(
  METHOD_NAMES.flatMap((name) => parametersOf(name).map((p) => [p.flag, { type: 'string' } as const])),
);

export const EDIT_FLAGS = { ...PARAMETER_FLAGS, ...CRANE_CONTROL_FLAGS };

/** "--flag V   what (default d); what else (default e)" per flag, in the table's order. */
function parameterHelp(names: readonly MergeMethodName[]): string[] {
  const byFlag = new Map<string, MethodParameter[]>();
  // Path parameters (RAIN's calibration files) are documented and read by rain-flags.ts, which requires them.
  for (const p of names.flatMap(parametersOf).filter((q) => q.kind !== 'path')) byFlag.set(p.flag, [...(byFlag.get(p.flag) ?? []), p]);
  return [...byFlag].map(([flag, params]) => {
    const parts = [...new Set(params.map((p) => `${p.help} (default ${p.kind === 'number' ? p.defaultNote ?? p.default : p.default})`))];
    return `  ${`--${flag} ${flag.slice(0, 1).toUpperCase()}`.padEnd(17)} ${parts.join('; ')}`;
  });
}

/** CRANE's controls beyond the methods table's parameters. */
const CRANE_CONTROL_HELP = `  --no-threshold    skip stage 1 (raw δ)
  --no-gate         S = 1 everywhere (overrides still apply)
  --no-gsp          no projection
  --fine            one gate block per projection (q, k, v, o, gate, up, down) instead of per group
  --override K=S    set S of one block by hand, e.g. attention@3=0.5, ffn.up@1=0, norm@*=1 (repeatable)
  --protect-ids E   lm_head rows kept at θ_I beyond Instruct's added tokens but <think>/</think>:
                    +ID protects a row, -ID releases one, e.g. +151669,-151650`;

/** CRANE's flags alone (crane preview has no --method). */
export const CRANE_FLAGS_HELP = `Edit settings:
${parameterHelp(['crane']).join('\n')}
${CRANE_CONTROL_HELP}`;

export const EDIT_FLAGS_HELP = `Edit settings:
  --method M        ${METHOD_NAMES.join(' | ')} (default crane)
${parameterHelp(METHOD_NAMES).join('\n')}
${CRANE_CONTROL_HELP}`;

/** Flag values as parseArgs gives them: CRANE's controls typed, the parameter flags as strings. */
export type EditFlagValues = {
  readonly [K in keyof typeof CRANE_CONTROL_FLAGS]?: (typeof CRANE_CONTROL_FLAGS)[K]['type'] extends 'boolean' ? boolean : K extends 'override' ? string[] : string
} & { readonly [flag: string]: unknown };

/** The flag each settings field comes from, for error messages. */
const FLAG_OF: Record<string, string> = {
  ...Object.fromEntries(METHOD_NAMES.flatMap((name) => parametersOf(name).map((p) => [p.key, `--${p.flag}`]))),
  overrideScales: '--override', protectedTokens: '--protect-ids',
};

/** `tokens` are Instruct's tokenizer rows; --protect-ids edits the protected ones. */
export function craneSettingsFromFlags(values: EditFlagValues, tokens: TokenRows): ResolvedCraneSettings {
  const given = parameterValues(values, 'crane');
  const tau = typeof given.tau === 'number' ? given.tau : DEFAULT_TAU;
  const protectedTokens = protectedEdits(values['protect-ids']);
  return checked(resolvedCraneSettingsSchema, {
    ...defaultResolvedSettings(tokens),
    steepness: defaultSteepness(tau),
    ...given,
    stages: { threshold: values['no-threshold'] !== true, gate: values['no-gate'] !== true, gsp: values['no-gsp'] !== true },
    granularity: values.fine === true ? 'fine' : 'coarse',
    special: protectedTokens === undefined ? DEFAULT_CRANE_SETTINGS.special : { ...DEFAULT_CRANE_SETTINGS.special, protectedTokens },
    overrideScales: overrideScales(values.override ?? []),
    tokens: { think: tokens.think, special: applyProtectedEdits(tokens.special, protectedTokens) },
  });
}

/** The method and its settings as a recipe holds them (AIM's and LEWIS's importance are files beside them). */
export function methodSettingsFromFlags(
  values: EditFlagValues, tokens: TokenRows,
): { readonly method: 'crane'; readonly settings: ResolvedCraneSettings } | Exclude<BaselineMethod, { readonly method: 'rain' }> {
  const name = values.method ?? 'crane';
  if (!isMethodName(name)) throw new UsageError(`--method must be ${METHOD_NAMES.join(', ')}; got "${name}"`);
  refuseForeignFlags(values, name);
  if (name === 'crane') return { method: 'crane', settings: craneSettingsFromFlags(values, tokens) };
  const settings = checked(METHODS[name].schema, { ...DEFAULT_BASELINES[name], ...parameterValues(values, name) });
  if (settings.method === 'rain') throw new UsageError('RAIN needs a Base checkpoint: pass --base');
  return settings;
}

/**
 * A flag the chosen method has no use for (--density with CRANE, --override with TIES) would be
 * recorded nowhere and change nothing: refuse it, naming the methods it belongs to.
 */
function refuseForeignFlags(values: EditFlagValues, name: MergeMethodName): void {
  const own = new Set(parametersOf(name).map((p) => p.flag));
  const controls = name === 'crane' ? [] : Object.keys(CRANE_CONTROL_FLAGS).filter((flag) => flag !== 'method');
  for (const flag of [...Object.keys(PARAMETER_FLAGS).filter((f) => !own.has(f)), ...controls]) {
    if (values[flag] === undefined || values[flag] === false) continue;
    const owners = METHOD_NAMES.filter((m) => parametersOf(m).some((p) => p.flag === flag));
    throw new UsageError(`--${flag} does not apply to --method ${name} (it is a setting of ${owners.length > 0 ? owners.join(', ') : 'crane'})`);
  }
}

type MethodSettings = ReturnType<typeof methodSettingsFromFlags>;

/** No think or protected rows: what a method other than CRANE is read with. */
const NO_TOKEN_ROWS: TokenRows = { think: [], special: [] };

/**
 * Only CRANE's settings hold token rows (its think pair and protected rows): `tokenRows` (which
 * builds Instruct's tokenizer, an 11 MB tokenizer.json at Qwen3's vocabulary) is called for CRANE
 * alone, and another method's settings are read without it. The flags are read first with none,
 * so a usage error comes before any file is read.
 */
export async function methodSettingsWithTokenRows(values: EditFlagValues, tokenRows: () => Promise<TokenRows>): Promise<MethodSettings> {
  const settings = methodSettingsFromFlags(values, NO_TOKEN_ROWS);
  if (settings.method !== 'crane') return settings;
  return methodSettingsFromFlags(values, await tokenRows());
}

/** `importance`: the analysis's AIM importance vectors, which the AIM methods need; `lewis`: LEWIS's two importance files. */
export function editMethodFromFlags(
  values: EditFlagValues, tokens: TokenRows, importance?: ReadonlyMap<string, Float32Array | Float64Array>, lewis?: LewisImportances,
): Exclude<EditMethod, { readonly method: 'rain' }> {
  return editMethodOf(methodSettingsFromFlags(values, tokens), importance, lewis);
}

/** editMethodFromFlags of settings already read (methodSettingsWithTokenRows). */
export function editMethodOf(
  settings: MethodSettings, importance?: ReadonlyMap<string, Float32Array | Float64Array>, lewis?: LewisImportances,
): Exclude<EditMethod, { readonly method: 'rain' }> {
  if (settings.method === 'crane') return settings;
  if (settings.method === 'lewis') {
    if (lewis === undefined) throw new UsageError('--method lewis needs --importance-base F and --importance-tuned F');
    return lewisEditSettings(settings, lewis);
  }
  if (!isAimMethod(settings)) return settings;
  if (importance === undefined) throw new UsageError(`--method ${settings.method} needs the AIM importance of an analysis (--analysis DIR)`);
  return { ...settings, importance: aimImportanceOf(importance) };
}

/** RAIN's settings from its flags; crane merge/verify read it beside --base. */
export function rainSettingsFromFlags(values: EditFlagValues): RainSettings {
  return checked(METHODS.rain.schema, { ...DEFAULT_BASELINES.rain, ...parameterValues(values, 'rain') });
}

/** The method's parameters whose flags are given (numbers parsed, choices checked), by settings key. */
function parameterValues(values: EditFlagValues, name: MergeMethodName): Partial<Record<string, number | string>> {
  const given: Partial<Record<string, number | string>> = {};
  for (const parameter of parametersOf(name)) {
    const text = values[parameter.flag];
    if (typeof text === 'string' && parameter.kind !== 'path') given[parameter.key] = parameterValue(text, parameter);
  }
  return given;
}

function parameterValue(text: string, parameter: Exclude<MethodParameter, { kind: 'path' }>): number | string {
  const flag = `--${parameter.flag}`;
  if (parameter.kind === 'number') return number(text, flag);
  if (!parameter.options.includes(text)) throw new UsageError(`${flag} must be ${parameter.options.join(' or ')}, got "${text}"`);
  return text;
}

const DTYPES: Record<string, ExportDtype> = { source: 'source', bf16: 'BF16', f16: 'F16', f32: 'F32' };

export function exportDtypeFromFlag(value: string | undefined): ExportDtype {
  const dtype = DTYPES[(value ?? 'source').toLowerCase()];
  if (dtype === undefined) throw new UsageError(`--dtype must be source, bf16, f16 or f32, got "${value}"`);
  return dtype;
}

const UNITS: Record<string, number> = { '': 1, B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3, TIB: 1024 ** 4 };

/** "5GB" (decimal, as Hugging Face's max_shard_size), "512MiB", "1000000"; `flag` (the option given) names it in the error. */
export function parseByteSize(text: string, flag: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]?I?B?)\s*$/i.exec(text);
  const unit = m === null ? undefined : UNITS[(m[2] ?? '').toUpperCase()];
  const bytes = m === null || unit === undefined ? Number.NaN : Math.floor(Number(m[1]) * unit);
  if (!(bytes >= 1)) throw new UsageError(`${flag} must be a size such as 5GB or 512MiB, got "${text}"`);
  return bytes;
}

function overrideScales(items: readonly string[]): Record<string, number> {
  const scales: Record<string, number> = {};
  for (const item of items) {
    const m = /^([^=]+)=(.+)$/.exec(item);
    const value = m === null ? undefined : number(m[2] ?? '', '--override');
    if (m === null || value === undefined || !blockKeySchema.safeParse(m[1]).success) throw new UsageError(`--override must look like attention@3=0.5 or ffn.up@*=0, got "${item}"`);
    scales[m[1] as string] = value;
  }
  return scales;
}

function protectedEdits(text: string | undefined): ProtectedTokenEdits | undefined {
  if (text === undefined) return undefined;
  try {
    return parseProtectedEdits(text);
  } catch (error) {
    throw new UsageError(`--protect-ids: ${(error as Error).message}`);
  }
}

/** Text that is not a finite number is refused, naming the flag. */
function number(text: string, flag: string): number {
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
