/**
 * What the analysis measured beyond first order, for the preview: per edit direction Δ_b
 * (crane/edit-directions.ts) the gradients g_K·Δ_b, the curvature Δ_bᵀH_KΔ_b', the routers'
 * gradient products (preview-router.ts) and a few losses measured at real edits to say where the
 * quadratic model holds.
 *
 *   await writeCurvatureFile(path, curvature)
 *   await readCurvatureFile(path) → PreviewCurvature | undefined (missing file)
 *
 * JSON: dense B×B matrices while the stage measured every direction, the low-rank form
 * (curvature-operator.ts) when it sketched M from a few probes (curvature-sketch.ts; `span` holds
 * the probes' orthonormal basis) or B is beyond a few hundred.
 */
import { z } from 'zod';
import { writeFileAtomic } from '../io/atomic-file.ts';
import { readJsonFile } from '../io/json-file.ts';
import type { EditDirection } from '../crane/edit-directions.ts';
import type { CurvatureMatrix } from './curvature-operator.ts';

export const CURVATURE_FILE = 'curvature.json';

const lossPair = z.strictObject({ reasoning: z.number(), agent: z.number() });
const matrixPair = z.strictObject({ reasoning: z.array(z.number()), agent: z.array(z.number()) });
const lowRank = z.strictObject({ diagonal: z.array(z.number()).readonly(), vectors: z.array(z.number()).readonly(), weights: z.array(z.number()).readonly(), dropped: z.number().nonnegative(), span: z.array(z.number()).readonly().optional() });

/** The settings the directions were built at: q, τ, k and the two toggles that shape Δ_b. */
const basisSchema = z.strictObject({
  keepQuantile: z.number(),
  tau: z.number(),
  steepness: z.number(),
  threshold: z.boolean(),
  gsp: z.boolean(),
});

const curvatureSchema = z
  .strictObject({
    basis: basisSchema,
    /** The special-tensor strengths the anchors were measured at (every other setting: `basis`, the gate on, no overrides). */
    anchorSpecial: z.strictObject({ thinkRows: z.number(), lmHeadScale: z.number(), routerAlphaFraction: z.number() }),
    directions: z.array(z.strictObject({
      key: z.string(),
      group: z.enum(['attention', 'ffn', 'expert', 'shared_expert', 'linear_attn', 'norm', 'other', 'final_norm', 'embed_think', 'lm_head_think', 'lm_head_blend']),
      coefficient: z.enum(['alpha-scale', 'think-rows', 'lm-head-scale']),
    })),
    /** The step ε_b each direction's gradient difference was taken over. */
    epsilon: z.array(z.number().positive()),
    /** g_K·Δ_b at θ_I. */
    firstOrder: matrixPair,
    /** Δ_bᵀ H_K Δ_b', row-major B×B, symmetric; or (many directions) its low-rank form (curvature-operator.ts). */
    hessian: matrixPair.optional(),
    lowRank: z.strictObject({ reasoning: lowRank, agent: lowRank }).optional(),
    /** Per router (MoE models): what its SLERP's first order needs (preview-router.ts). */
    routers: z.array(z.strictObject({
      name: z.string(),
      shape: z.array(z.number().int().nonnegative()).readonly(),
      products: z.strictObject({ dot: z.number(), normI: z.number().nonnegative(), normT: z.number().nonnegative() }),
      gradThetaI: lossPair,
      gradThetaT: lossPair,
    })),
    /** ΔL_K measured on the gradients' split at α (the rest as anchorSpecial / basis). */
    anchors: z.array(z.strictObject({ alpha: z.number(), measured: lossPair })),
    /** Which sequences the gradients, curvature and anchors are about. */
    split: z.string(),
  })
  .refine((c) => c.epsilon.length === c.directions.length, 'one ε per direction')
  .refine((c) => [c.firstOrder.reasoning, c.firstOrder.agent].every((v) => v.length === c.directions.length), 'one gradient term per direction')
  .refine((c) => (c.hessian === undefined) !== (c.lowRank === undefined), 'the curvature dense or low-rank (one of the two)')
  .refine((c) => c.hessian === undefined || [c.hessian.reasoning, c.hessian.agent].every((v) => v.length === c.directions.length ** 2), 'a B×B curvature matrix per loss')
  .refine((c) => c.lowRank === undefined || [c.lowRank.reasoning, c.lowRank.agent].every((f) => f.diagonal.length === c.directions.length && f.vectors.length === c.directions.length * f.weights.length), 'a diagonal of B and a B×k factor per loss')
  .refine((c) => c.lowRank === undefined || [c.lowRank.reasoning, c.lowRank.agent].every((f) => f.span === undefined || (f.span.length > 0 && f.span.length % c.directions.length === 0)), 'a sketch\'s span of B×r values');

export type CurvatureBasis = z.infer<typeof basisSchema>;

/** One loss's curvature in the form the file holds it. */
export function curvatureMatrix(curvature: Pick<PreviewCurvature, 'hessian' | 'lowRank'>, loss: 'reasoning' | 'agent'): CurvatureMatrix {
  if (curvature.hessian !== undefined) return { dense: curvature.hessian[loss] };
  if (curvature.lowRank !== undefined) return { lowRank: curvature.lowRank[loss] };
  throw new RangeError('a preview curvature without a curvature matrix');
}

export interface PreviewCurvature extends Omit<z.infer<typeof curvatureSchema>, 'directions'> {
  readonly directions: readonly EditDirection[];
}

export async function writeCurvatureFile(path: string, curvature: PreviewCurvature): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(curvatureSchema.parse(curvature))}\n`);
}

export function readCurvatureFile(path: string): Promise<PreviewCurvature | undefined> {
  return readJsonFile(path, curvatureSchema, 'a preview curvature file');
}
