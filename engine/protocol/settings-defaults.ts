/**
 * The defaults and presets of shared/spec/crane.md, for everyone: a new project's edit settings,
 * the CLI's flag defaults, the UI's presets, the baselines the studio compares against, and the
 * reference analysis. The engine's rules take these values as their defaults.
 */
import { DEFAULT_TAU, defaultSteepness } from './gsp-mask.ts';
import type {
  AnalysisSettings, BaselineMethod, CraneSettings, MergeMethod, MergeMethodName, ResolvedCraneSettings, SpecialTensorSettings, TokenRows,
} from './settings-schemas.ts';

/** Stage-1 keep quantile q: 0.5 reproduces the reference. */
export const DEFAULT_KEEP_QUANTILE = 0.5;

/** CRANE's α on Qwen3-30B-A3B (the paper's 80B run used 0.15). */
export const DEFAULT_ALPHA = 0.25;

/** The studio computes edits in float32; `reference` (bf16, as crane_merge.py) is opt-in. */
export const DEFAULT_EDIT_ARITHMETIC = 'f32';

/** <think> rows move 0.8 of the way, an untied lm_head 0.03·δ, routers by SLERP at t = α/3. */
export const DEFAULT_SPECIAL_TENSORS: SpecialTensorSettings = { thinkRows: 0.8, lmHeadScale: 0.03, routerAlphaFraction: 1 / 3 };

/** The knobs every paper run shares: q 0.5, τ 0.03, k 4.6/τ, every stage on. */
const PAPER_KNOBS = {
  keepQuantile: DEFAULT_KEEP_QUANTILE,
  tau: DEFAULT_TAU,
  steepness: defaultSteepness(DEFAULT_TAU),
  stages: { threshold: true, gate: true, gsp: true },
  special: DEFAULT_SPECIAL_TENSORS,
} as const;

/** The 30B reference run at the spec's coarse blocks. */
const DEFAULT_KNOBS = { ...PAPER_KNOBS, alpha: DEFAULT_ALPHA, granularity: 'coarse', arith: DEFAULT_EDIT_ARITHMETIC } as const;

/** A new project's edit settings: the reference run, no overrides. */
export const DEFAULT_CRANE_SETTINGS: CraneSettings = { ...DEFAULT_KNOBS, overrides: [] };

/** The default settings as an edit applies them (scripts, tests): no overrides, these token rows. */
export function defaultResolvedSettings(tokens: TokenRows): ResolvedCraneSettings {
  return { ...DEFAULT_KNOBS, overrideScales: {}, tokens };
}

export interface Preset {
  readonly id: string;
  readonly label: string;
  readonly description: string;
  /** Applied over the current settings; overrides and granularity are kept. */
  readonly patch: Omit<CraneSettings, 'overrides' | 'granularity'>;
}

export const PRESETS: readonly Preset[] = [
  { id: 'paper-30b', label: 'Paper: Qwen3-30B-A3B', description: 'α 0.25, q 0.5, τ 0.03, k 4.6/τ, all stages', patch: { ...PAPER_KNOBS, alpha: DEFAULT_ALPHA } },
  { id: 'paper-80b', label: 'Paper: Qwen3-Next-80B', description: 'α 0.15, q 0.5, τ 0.03, k 4.6/τ, all stages', patch: { ...PAPER_KNOBS, alpha: 0.15 } },
];

/** λ (and SLERP's t) of the baselines at the reference runs (0.30 at 30B). */
const DEFAULT_BASELINE_STRENGTH = 0.3;
const DEFAULT_TIES_DENSITY = 0.5;
const DEFAULT_DARE_DROP_PROBABILITY = 0.5;
export const DEFAULT_AIM_OMEGA = 0.4;
/** LEWIS's density floor γ, ceiling ε (the paper's) and the density off the schedule (lewis.py's). */
const DEFAULT_LEWIS = { gamma: 0.3, epsilon: 0.8, defaultDensity: 0.5 } as const;

/** Each baseline at its reference settings. */
export const DEFAULT_BASELINES: { readonly [M in BaselineMethod['method']]: Extract<BaselineMethod, { method: M }> } = {
  task_arithmetic: { method: 'task_arithmetic', lambda: DEFAULT_BASELINE_STRENGTH },
  ties: { method: 'ties', lambda: DEFAULT_BASELINE_STRENGTH, density: DEFAULT_TIES_DENSITY },
  slerp: { method: 'slerp', t: DEFAULT_BASELINE_STRENGTH },
  dare: { method: 'dare', lambda: DEFAULT_BASELINE_STRENGTH, dropProbability: DEFAULT_DARE_DROP_PROBABILITY, seed: 0 },
  aim: { method: 'aim', lambda: DEFAULT_BASELINE_STRENGTH, omega: DEFAULT_AIM_OMEGA },
  aim_ties: { method: 'aim_ties', lambda: DEFAULT_BASELINE_STRENGTH, omega: DEFAULT_AIM_OMEGA, density: DEFAULT_TIES_DENSITY },
  lewis: { method: 'lewis', lambda: DEFAULT_BASELINE_STRENGTH, ...DEFAULT_LEWIS },
  // rain.py's defaults (its --layers-tail, --lambda-ridge, --prior-scalar … --qp-max-seq-len).
  rain: { method: 'rain', ridge: 1e-4, radius: 5, layersTail: 27, priorScalar: 1, l2Prior: 0.1, boxLo: 0, boxHi: 1.5, hLambda: 1, hMu: 1, rhoDu: 0.5, qpMaxTokens: 1536, seed: 42 },
};

/** A method at its reference settings; CRANE carries the given settings. */
export function defaultMethod(method: MergeMethodName, crane: CraneSettings): MergeMethod {
  return method === 'crane' ? { method, settings: crane } : DEFAULT_BASELINES[method];
}

/**
 * The reference analysis, but for where the calibration sets live: D_R decoded up to 8192 new
 * tokens, D_A up to 2048, every example in the gradients (Verify measures on the calibration sets
 * until an evaluation set or a held-out share is chosen); GSP from format traces cut at
 * 4096 tokens, ±3 tokens around Qwen's six tool/turn delimiters, at most 256 directions above
 * 1e-5·σ₁.
 */
export const DEFAULT_ANALYSIS_KNOBS: Omit<AnalysisSettings, 'calibration'> = {
  reasoningMaxNewTokens: 8192,
  agentMaxNewTokens: 2048,
  evaluation: { source: 'calibration' },
  gsp: {
    maxRank: 256,
    rankCut: 1e-5,
    radius: 3,
    maxTokens: 4096,
    formatPatterns: ['<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>', '<|im_start|>', '<|im_end|>'],
  },
};
