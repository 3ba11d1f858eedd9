/**
 * The edit settings a new project starts with: the spec's reference defaults (α 0.25 as in the
 * Qwen3-30B-A3B runs, q 0.5, τ 0.03, k 4.6/τ, every stage on, coarse blocks). The renderer keeps
 * its own copy for its presets (it must not import engine code); both follow shared/spec/crane.md.
 */
import type { z } from 'zod';
import { DEFAULT_TAU } from '../crane/gsp-projector.ts';
import { DEFAULT_KEEP_QUANTILE } from '../crane/magnitude-threshold.ts';
import { LM_HEAD_SCALE, ROUTER_ALPHA_DIVISOR, THINK_ROW_STRENGTH } from '../crane/special-tensors.ts';
import type { craneSettingsSchema } from '../protocol/settings-schemas.ts';

export type EditSettings = z.infer<typeof craneSettingsSchema>;

export const DEFAULT_EDIT_SETTINGS: EditSettings = {
  alpha: 0.25,
  keepQuantile: DEFAULT_KEEP_QUANTILE,
  tau: DEFAULT_TAU,
  steepness: 4.6 / DEFAULT_TAU,
  stages: { threshold: true, ctg: true, gsp: true },
  grouping: 'coarse',
  special: { thinkRows: THINK_ROW_STRENGTH, lmHeadScale: LM_HEAD_SCALE, routerAlphaFraction: 1 / ROUTER_ALPHA_DIVISOR },
  overrides: [],
};
