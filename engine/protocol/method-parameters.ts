/**
 * THE table of merge methods: each method's label, its settings schema and its editable
 * parameters (key, label, CLI flag, range, default). `crane merge --method` and the Methods view
 * both derive from it, so a method added here is a flag set and a form without further wiring.
 *
 *   METHODS[name]                    { label, schema, parameters }
 *   METHOD_NAMES                     every method, in display order
 *   methodFromParameters(name, values, crane) → MergeMethod (validated; missing values = defaults)
 *
 * CRANE's row lists the knobs a run is usually tuned by; its stage toggles, blocks, overrides and
 * special-tensor rules have their own controls (the Edit view, --no-gsp, --override ...).
 * Ranges are the schema's: `min`/`max` are the bounds an input offers, and an open bound (λ's
 * density > 0, DARE's p < 1) is the schema's to refuse.
 */
import type { z } from 'zod';
import { DEFAULT_TAU, defaultSteepness } from './gsp-mask.ts';
import { DEFAULT_ALPHA, DEFAULT_BASELINES, DEFAULT_EDIT_ARITHMETIC, DEFAULT_KEEP_QUANTILE } from './settings-defaults.ts';
import {
  aimSchema, aimTiesSchema, craneSettingsSchema, dareSchema, editArithmeticSchema, lewisSchema, rainSchema, slerpSchema, STRENGTH_RANGE, taskArithmeticSchema, tiesSchema,
  type BaselineMethod, type CraneSettings, type MergeMethod, type MergeMethodName,
} from './settings-schemas.ts';

interface ParameterBase<K extends string> {
  readonly key: K;
  /** What the form shows, e.g. "λ (strength)". */
  readonly label: string;
  /** The CLI flag without dashes; methods may share one (--alpha is every method's strength). */
  readonly flag: string;
  readonly help: string;
}

export interface NumberParameter<K extends string = string> extends ParameterBase<K> {
  readonly kind: 'number';
  readonly min: number;
  /** null: no upper bound. */
  readonly max: number | null;
  readonly step: number;
  readonly integer: boolean;
  readonly default: number;
  /** How --help states a default that follows another setting (k's 4.6/τ). */
  readonly defaultNote?: string;
}

export interface ChoiceParameter<K extends string = string> extends ParameterBase<K> {
  readonly kind: 'choice';
  readonly options: readonly string[];
  readonly default: string;
}

/** A file the method reads; no default, and an empty value is no file (RAIN's calibration files). */
export interface PathParameter<K extends string = string> extends ParameterBase<K> {
  readonly kind: 'path';
  readonly default: '';
}

export type MethodParameter<K extends string = string> = NumberParameter<K> | ChoiceParameter<K> | PathParameter<K>;

type BaselineName = BaselineMethod['method'];
type SettingsOf<M extends MergeMethodName> = M extends 'crane' ? CraneSettings : Extract<BaselineMethod, { method: M }>;
type ParameterKey<M extends MergeMethodName> = Exclude<keyof SettingsOf<M>, 'method'> & string;

export interface MethodEntry<M extends MergeMethodName> {
  readonly label: string;
  /** The settings schema (for CRANE, of its settings object). */
  readonly schema: z.ZodType<SettingsOf<M>>;
  readonly parameters: readonly MethodParameter<ParameterKey<M>>[];
  /** A third checkpoint the method reads besides Instruct and Thinking (RAIN's τ = Instruct − Base). */
  readonly needs?: 'base';
}

const strength = <K extends string>(key: K, label: string, help: string, fallback: number): NumberParameter<K> => ({
  kind: 'number', key, label, flag: 'alpha', help, min: STRENGTH_RANGE.min, max: STRENGTH_RANGE.max, step: 0.05, integer: false, default: fallback,
});
const lambda = strength('lambda', 'λ (strength)', 'λ of the baselines', DEFAULT_BASELINES.task_arithmetic.lambda);
/** A share in [0, 1] edited in steps of 0.05: quantiles, densities, probabilities, ω. */
const share = <K extends string>(key: K, label: string, flag: string, help: string, fallback: number): NumberParameter<K> => ({
  kind: 'number', key, label, flag, help, min: 0, max: 1, step: 0.05, integer: false, default: fallback,
});
const tiesDensity = (fallback: number) => share('density', 'density', 'density', 'TIES share of |δ| kept', fallback);
const aimOmega = (fallback: number) => share('omega', 'ω', 'omega', 'AIM ω (scale kept by the most active channel)', fallback);

export const METHODS: { readonly [M in MergeMethodName]: MethodEntry<M> } = {
  crane: {
    label: 'CRANE',
    schema: craneSettingsSchema,
    parameters: [
      strength('alpha', 'α (strength)', 'CRANE α', DEFAULT_ALPHA),
      share('keepQuantile', 'q (keep quantile)', 'q', 'stage-1 keep quantile; survivors ×1/(1−q)', DEFAULT_KEEP_QUANTILE),
      { kind: 'number', key: 'tau', label: 'τ (GSP centre)', flag: 'tau', help: 'GSP sigmoid centre', min: 0, max: 1, step: 0.01, integer: false, default: DEFAULT_TAU },
      { kind: 'number', key: 'steepness', label: 'k (GSP steepness)', flag: 'k', help: 'GSP sigmoid steepness', min: 0, max: null, step: 1, integer: false, default: defaultSteepness(DEFAULT_TAU), defaultNote: '4.6/τ' },
      { kind: 'choice', key: 'arith', label: 'arithmetic', flag: 'arith', help: 'f32 | reference (bf16 at every step, as crane_merge.py)', options: editArithmeticSchema.options, default: DEFAULT_EDIT_ARITHMETIC },
    ],
  },
  task_arithmetic: { label: 'Task Arithmetic', schema: taskArithmeticSchema, parameters: [lambda] },
  ties: {
    label: 'TIES',
    schema: tiesSchema,
    parameters: [lambda, tiesDensity(DEFAULT_BASELINES.ties.density)],
  },
  slerp: { label: 'SLERP', schema: slerpSchema, parameters: [{ ...strength('t', 't (fraction)', 't of SLERP (0 = θ_I, 1 = θ_T)', DEFAULT_BASELINES.slerp.t), max: 1 }] },
  dare: {
    label: 'DARE',
    schema: dareSchema,
    parameters: [
      lambda,
      share('dropProbability', 'drop p', 'drop', 'DARE drop probability', DEFAULT_BASELINES.dare.dropProbability),
      { kind: 'number', key: 'seed', label: 'seed', flag: 'seed', help: 'DARE seed', min: 0, max: null, step: 1, integer: true, default: DEFAULT_BASELINES.dare.seed },
    ],
  },
  aim: {
    label: 'AIM-TA',
    schema: aimSchema,
    parameters: [lambda, aimOmega(DEFAULT_BASELINES.aim.omega)],
  },
  aim_ties: {
    label: 'AIM-TIES',
    schema: aimTiesSchema,
    parameters: [
      lambda,
      aimOmega(DEFAULT_BASELINES.aim_ties.omega),
      tiesDensity(DEFAULT_BASELINES.aim_ties.density),
    ],
  },
  lewis: {
    label: 'LEWIS',
    schema: lewisSchema,
    parameters: [
      lambda,
      share('gamma', 'γ (density floor)', 'gamma', 'LEWIS TIES density of the (layer, projection) whose importance moved least', DEFAULT_BASELINES.lewis.gamma),
      share('epsilon', 'ε (density ceiling)', 'epsilon', 'LEWIS TIES density of the (layer, projection) whose importance moved most', DEFAULT_BASELINES.lewis.epsilon),
      share('defaultDensity', 'density elsewhere', 'default-density', 'LEWIS TIES density of tensors outside the schedule (embeddings, norms, lm_head)', DEFAULT_BASELINES.lewis.defaultDensity),
    ],
  },
  rain: {
    label: 'RAIN',
    schema: rainSchema,
    needs: 'base',
    parameters: [
      { kind: 'number', key: 'ridge', label: 'λ (ridge)', flag: 'ridge', help: 'RAIN null-space projection ridge', min: 1e-8, max: 1, step: 1e-4, integer: false, default: DEFAULT_BASELINES.rain.ridge },
      { kind: 'number', key: 'radius', label: 'think radius', flag: 'think-radius', help: 'RAIN <think>/</think> neighbourhood radius (tokens)', min: 0, max: 64, step: 1, integer: true, default: DEFAULT_BASELINES.rain.radius },
      { kind: 'number', key: 'layersTail', label: 'last layers', flag: 'layers-tail', help: 'RAIN edits the q/k/v/o heads of this many last layers', min: 1, max: 1024, step: 1, integer: true, default: DEFAULT_BASELINES.rain.layersTail },
      { kind: 'number', key: 'priorScalar', label: 'α prior', flag: 'prior', help: 'RAIN α applied between the two passes and the QP prior', min: 0, max: 4, step: 0.05, integer: false, default: DEFAULT_BASELINES.rain.priorScalar },
      { kind: 'number', key: 'l2Prior', label: 'L2 to prior', flag: 'l2-prior', help: 'RAIN QP pull toward the α prior', min: 0, max: 1000, step: 0.05, integer: false, default: DEFAULT_BASELINES.rain.l2Prior },
      { kind: 'number', key: 'boxLo', label: 'α low', flag: 'box-lo', help: 'RAIN α lower bound', min: -2, max: 1, step: 0.05, integer: false, default: DEFAULT_BASELINES.rain.boxLo },
      { kind: 'number', key: 'boxHi', label: 'α high', flag: 'box-hi', help: 'RAIN α upper bound', min: 0, max: 4, step: 0.05, integer: false, default: DEFAULT_BASELINES.rain.boxHi },
      { kind: 'number', key: 'hLambda', label: 'H λ', flag: 'h-lambda', help: 'RAIN QP curvature per prompt', min: 0, max: 1000, step: 0.1, integer: false, default: DEFAULT_BASELINES.rain.hLambda },
      { kind: 'number', key: 'hMu', label: 'H μ', flag: 'h-mu', help: 'RAIN QP curvature per unit of post-merge leak', min: 0, max: 1000, step: 0.1, integer: false, default: DEFAULT_BASELINES.rain.hMu },
      { kind: 'number', key: 'rhoDu', label: 'ρ (leak)', flag: 'rho-du', help: 'RAIN weight of the leak change against the alignment gain', min: 0, max: 1000, step: 0.05, integer: false, default: DEFAULT_BASELINES.rain.rhoDu },
      { kind: 'number', key: 'qpMaxTokens', label: 'QP prompt tokens', flag: 'qp-max-tokens', help: 'RAIN instruction prompts are cut to this many tokens', min: 1, max: 131_072, step: 1, integer: true, default: DEFAULT_BASELINES.rain.qpMaxTokens },
      { kind: 'number', key: 'seed', label: 'seed', flag: 'seed', help: 'RAIN constraint sites and read-out directions', min: 0, max: null, step: 1, integer: true, default: DEFAULT_BASELINES.rain.seed },
      { kind: 'path', key: 'reasoningFile', label: 'reasoning file', flag: 'rain-reasoning', help: 'RAIN reasoning_calibration_set.json: LRM prompts whose <think>/</think> features the projection keeps', default: '' },
      { kind: 'path', key: 'instructionsFile', label: 'instructions file', flag: 'rain-instructions', help: 'RAIN instruction_calibration_set.jsonl: the instruction prompts α is fitted on', default: '' },
    ],
  },
};

export const METHOD_NAMES = Object.keys(METHODS) as MergeMethodName[];

export const isMethodName = (name: string): name is MergeMethodName => Object.hasOwn(METHODS, name);

/** A method's parameters, typed for generic readers (flags, forms). */
export const parametersOf = (name: MergeMethodName): readonly MethodParameter[] => METHODS[name].parameters;

/** Parameter values by key (a number or a choice); absent ones take the method's defaults. */
export type ParameterValues = Readonly<Record<string, number | string | undefined>>;

/**
 * The method with these parameter values over its defaults (CRANE: over `crane`), validated by
 * its schema. Throws the schema's ZodError naming the parameter's key on a value out of range.
 */
export function methodFromParameters(name: MergeMethodName, values: ParameterValues, crane: CraneSettings): MergeMethod {
  const checked = checkParameters(name, values, crane);
  if (!checked.success) throw checked.error;
  return checked.method;
}

/** Why these values are refused ("density: Too big: expected number to be <=1"), or null: the form's check. */
export function parameterError(name: MergeMethodName, values: ParameterValues, crane: CraneSettings): string | null {
  const checked = checkParameters(name, values, crane);
  if (checked.success) return null;
  const issue = checked.error.issues[0];
  return issue === undefined ? checked.error.message : `${issue.path.join('.')}: ${issue.message}`;
}

type Checked = { readonly success: true; readonly method: MergeMethod } | { readonly success: false; readonly error: z.ZodError };

function checkParameters(name: MergeMethodName, values: ParameterValues, crane: CraneSettings): Checked {
  // A cleared path field is no file, not an empty path.
  const given = Object.fromEntries(parametersOf(name).flatMap((p) => (values[p.key] === undefined || (p.kind === 'path' && values[p.key] === '') ? [] : [[p.key, values[p.key]]])));
  if (name === 'crane') {
    const parsed = METHODS.crane.schema.safeParse({ ...crane, ...given });
    return parsed.success ? { success: true, method: { method: 'crane', settings: parsed.data } } : { success: false, error: parsed.error };
  }
  const parsed = baselineSchema(name).safeParse({ ...DEFAULT_BASELINES[name], ...given });
  return parsed.success ? { success: true, method: parsed.data } : { success: false, error: parsed.error };
}

const baselineSchema = (name: BaselineName): z.ZodType<BaselineMethod> => METHODS[name].schema;
