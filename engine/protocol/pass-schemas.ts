/**
 * getPassMetrics: the per-pass views of a looped model's analysis (NanbeigeForCausalLM runs the
 * same decoder layers once per pass, so every weight an edit changes acts at each pass's depth).
 * The gate itself scores the summed gradient, as the method defines; these are its first-order
 * parts per pass — s_R = −g_R,pass·δ summed over a block, likewise s_A — and each pass's own
 * conflict share, plus the GSP spectra of each pass's format activations beside the pooled one
 * the projectors use.
 */
import { z } from 'zod';
import { activationKeySchema } from './analysis-schemas.ts';
import { blockSchema } from './common-schemas.ts';

/** One block's first-order sums in one pass; `block` null is the coarse (group, layer) block. */
export const passBlockSchema = z.strictObject({
  pass: z.int().nonnegative(),
  layer: z.int().nonnegative(),
  group: z.string().min(1),
  block: z.string().min(1).nullable(),
  /** Scalar coordinates in the block. */
  count: z.int().nonnegative(),
  /** Σ s_R over the block from this pass's part of g_R (the passes' values add up to the gate's Σs_R). */
  sumReasoning: z.number(),
  sumAgent: z.number(),
  /** Σ max(0, min(s_R, s_A)) with this pass's parts (not additive over passes). */
  positive: z.number(),
  /** Share of this pass's first-order mass on coordinates where its s_R and s_A have opposite signs. */
  conflictShare: z.number().min(0).max(1),
  /** The gate heatmap's column of the block (getGateMetrics' group name at the block's granularity: coarse when `block` is null). */
  column: z.string().min(1),
});

/** A block as the pipeline stores it: the columns are the handler's (they depend on the whole gate table). */
export const storedPassBlockSchema = passBlockSchema.omit({ column: true });

/** σ of the Gram matrix of one layer's format activations: one pass's rows, or every pass's (pass null: what GSP uses). */
export const passSpectrumSchema = z.strictObject({
  layer: z.int().nonnegative(),
  key: activationKeySchema,
  pass: z.int().nonnegative().nullable(),
  sigma: z.array(z.number().nonnegative()),
});

export const passMetricsSchema = z.strictObject({
  passes: z.int().min(2),
  layers: z.int().min(1),
  blocks: z.array(passBlockSchema),
  spectra: z.array(passSpectrumSchema),
});

export const storedPassMetricsSchema = passMetricsSchema.extend({ blocks: z.array(storedPassBlockSchema) });

/**
 * What one tensor's edit does through one pass, to first order: the pass's part of the loss
 * gradient dotted with the method's update Δ = θ_edited − θ_I. The passes' values add up to the
 * tensor's whole first-order ΔL (g = Σ_pass g_pass), so a pass with the larger |ΔL| is where the
 * edit acts; opposite signs mean the edit helps at one depth and hurts at the other.
 */
export const passContributionSchema = z.strictObject({
  pass: z.int().nonnegative(),
  /** g_R,pass · Δ: the predicted change of L_R (negative: the edit lowers the reasoning loss through this pass). */
  lossReasoning: z.number(),
  lossAgent: z.number(),
  /** ‖g_R,pass‖ and ‖g_A,pass‖: how strongly each loss reacts to the tensor at this pass's depth, whatever the edit. */
  gradNormReasoning: z.number().nonnegative(),
  gradNormAgent: z.number().nonnegative(),
});

/** getBlockPasses: one block of a looped model under one method, each tensor's contribution per pass (every pass, in order). */
export const blockPassesSchema = z.strictObject({
  block: blockSchema,
  passes: z.int().min(2),
  tensors: z.array(z.strictObject({ name: z.string().min(1), passes: z.array(passContributionSchema) })),
}).superRefine((value, ctx) => {
  for (const tensor of value.tensors) {
    if (tensor.passes.length !== value.passes || tensor.passes.some((part, pass) => part.pass !== pass)) {
      ctx.addIssue({ code: 'custom', message: `${tensor.name}: needs passes 0..${value.passes - 1} in order`, path: ['tensors'] });
    }
  }
});

export type PassContribution = z.infer<typeof passContributionSchema>;
export type PassBlock = z.infer<typeof passBlockSchema>;
export type StoredPassBlock = z.infer<typeof storedPassBlockSchema>;
export type StoredPassMetrics = z.infer<typeof storedPassMetricsSchema>;
export type PassSpectrum = z.infer<typeof passSpectrumSchema>;
export type PassMetrics = z.infer<typeof passMetricsSchema>;
