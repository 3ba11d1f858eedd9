/**
 * getExpertMetrics: the layer × expert views of an MoE analysis — S per routed expert and the
 * gate sums behind it, and the router statistics of the calibration sets, so a researcher sees
 * which experts carry reasoning (D_R) and which tool use (D_A) or the format (D_F). Every matrix
 * is layers × experts, row-major by layer; NaN where a layer has no such value (a dense layer
 * in an MoE stack, a fused expert tensor that has no per-expert block).
 */
import { z } from 'zod';
import { matrixSchema } from './common-schemas.ts';

/** One calibration set's routing: its counted tokens and, per layer and expert, what went there. */
export const routedSetSchema = z.strictObject({
  /** Tokens counted (D_R/D_A loss targets, D_F format positions), each routed to k experts. */
  tokens: z.int().nonnegative(),
  /** Tokens routed to the expert. */
  routed: matrixSchema,
  /** The expert's mean router probability over the set's tokens (routed there or not). */
  meanProbability: matrixSchema,
});

export const expertMetricsSchema = z.strictObject({
  layers: z.int().nonnegative(),
  experts: z.int().min(1),
  /** Top-k of the router; 0 when the analysis has no router statistics. */
  expertsPerToken: z.int().nonnegative(),
  /** S_CTG of each expert's fine block, Σs_R, Σs_A, conflict share and ‖δ‖/‖θ_I‖ as the gate metrics. */
  gate: matrixSchema,
  sumReasoning: matrixSchema,
  sumAgent: matrixSchema,
  conflictShare: matrixSchema,
  relativeDelta: matrixSchema,
  /** Per calibration set; null when the analysis measured none (an imported reference run). */
  routing: z.strictObject({ reasoning: routedSetSchema.nullable(), agent: routedSetSchema.nullable(), format: routedSetSchema.nullable() }),
});

export type ExpertMetrics = z.infer<typeof expertMetricsSchema>;
export type RoutedSet = z.infer<typeof routedSetSchema>;
