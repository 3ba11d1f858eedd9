/** Defaults and presets of shared/spec/crane.md (paper runs on Qwen3-30B-A3B and Qwen3-Next-80B-A3B). */
import type { AnalysisSettings, CraneSettings, MergeMethod, MergeMethodKind } from '../protocol.ts';
import { defaultSteepness } from './sigmoid-mask.ts';

const TAU = 0.03;

export const DEFAULT_SETTINGS: CraneSettings = {
  alpha: 0.25,
  keepQuantile: 0.5,
  tau: TAU,
  steepness: defaultSteepness(TAU),
  stages: { threshold: true, ctg: true, gsp: true },
  grouping: 'coarse',
  special: { thinkRows: 0.8, lmHeadScale: 0.03, routerAlphaFraction: 1 / 3 },
  overrides: [],
};

export interface Preset {
  readonly id: string;
  readonly label: string;
  readonly description: string;
  /** Applied over the current settings; overrides and grouping are kept. */
  readonly patch: Partial<Omit<CraneSettings, 'overrides' | 'grouping'>>;
}

const paperDefaults = {
  keepQuantile: 0.5,
  tau: TAU,
  steepness: defaultSteepness(TAU),
  stages: { threshold: true, ctg: true, gsp: true },
  special: DEFAULT_SETTINGS.special,
};

export const PRESETS: readonly Preset[] = [
  { id: 'paper-30b', label: 'Paper: Qwen3-30B-A3B', description: 'α 0.25, q 0.5, τ 0.03, k 4.6/τ, all stages', patch: { ...paperDefaults, alpha: 0.25 } },
  { id: 'paper-80b', label: 'Paper: Qwen3-Next-80B', description: 'α 0.15, q 0.5, τ 0.03, k 4.6/τ, all stages', patch: { ...paperDefaults, alpha: 0.15 } },
];

export const DEFAULT_ANALYSIS: AnalysisSettings = {
  calibration: { reasoning: '/', agent: '/', format: '/' },
  reasoningMaxNewTokens: 8192,
  agentMaxNewTokens: 2048,
  heldOutFraction: 0.2,
  gsp: {
    maxRank: 256,
    rankCut: 1e-5,
    radius: 3,
    maxTokens: 4096,
    formatPatterns: ['<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>', '<|im_start|>', '<|im_end|>'],
  },
};

export const METHOD_LABELS: Record<MergeMethodKind, string> = {
  crane: 'CRANE',
  'task-arithmetic': 'Task Arithmetic',
  ties: 'TIES',
  slerp: 'SLERP',
  dare: 'DARE',
  aim: 'AIM',
};

export const METHOD_KINDS = Object.keys(METHOD_LABELS) as MergeMethodKind[];

/** The baselines at the reference λ/t (0.30 at 30B); CRANE carries the current settings. */
export function methodFor(kind: MergeMethodKind, settings: CraneSettings): MergeMethod {
  switch (kind) {
    case 'crane':
      return { kind, settings };
    case 'task-arithmetic':
      return { kind, lambda: 0.3 };
    case 'ties':
      return { kind, lambda: 0.3, density: 0.5 };
    case 'slerp':
      return { kind, t: 0.3 };
    case 'dare':
      return { kind, lambda: 0.3, dropRate: 0.5, seed: 0 };
    case 'aim':
      return { kind, lambda: 0.3, omega: 0.4 };
  }
}

export function describeMethod(method: MergeMethod): string {
  switch (method.kind) {
    case 'crane':
      return `α ${method.settings.alpha}, q ${method.settings.keepQuantile}, τ ${method.settings.tau}`;
    case 'task-arithmetic':
      return `λ ${method.lambda}`;
    case 'ties':
      return `λ ${method.lambda}, density ${method.density}`;
    case 'slerp':
      return `t ${method.t}`;
    case 'dare':
      return `λ ${method.lambda}, drop ${method.dropRate}, seed ${method.seed}`;
    case 'aim':
      return `λ ${method.lambda}, ω ${method.omega}`;
  }
}
