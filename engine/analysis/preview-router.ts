/**
 * The routers' share of the preview. CRANE does not add c·Δ to a router: it SLERPs it,
 * θ_M = SLERP(θ_I, θ_T, t) with t = α·routerAlphaFraction (crane/special-tensors.ts), and
 * SLERP(θ_I, θ_T, t) = wa(t)·θ_I + wb(t)·θ_T. So the router's first-order effect on loss K is
 *   g_K·(θ_M − θ_I) = (wa + wb − 1)·(g_K·θ_I) + wb·(g_K·θ_T − g_K·θ_I)
 * (the first factor is 0 on a linear blend, and small on an arc). The analysis keeps, per router,
 * g_K·θ_I and g_K·θ_T for both losses and the three products the weights depend on; a call is
 * O(routers), a few trigonometric functions each.
 *
 *   routerFirstOrder(routers, t) → LossTerms   Σ over routers
 *   new RouterCurve(routers).at(fraction, alphas) → RouterValues   the same at t = α·fraction,
 *       its values at the curve's α kept while the fraction and the α grid stay
 *
 * Routers are left out of the curvature model: a SLERP step is not c·Δ along one fixed
 * direction. The term is the first order of a piecewise-smooth loss: it matches the measured
 * loss while no token changes its top-k experts (pipeline/router-preview.test.ts, within 0.2%
 * at α 0.01 on the tiny MoE pair) and cannot see the jump when one does.
 */
import { routerEditWeights, type RouterProducts } from '../crane/special-tensors.ts';
import type { LossTerms } from './preview-quadratic.ts';

export interface RouterTerm {
  readonly name: string;
  readonly shape: readonly number[];
  readonly products: RouterProducts;
  /** g_K·θ_I and g_K·θ_T at θ_I, per loss. */
  readonly gradThetaI: LossTerms;
  readonly gradThetaT: LossTerms;
}

export function routerFirstOrder(routers: readonly RouterTerm[], t: number): LossTerms {
  let reasoning = 0;
  let agent = 0;
  for (const router of routers) {
    const [wa, wb] = routerEditWeights(router.products, router.shape, t);
    const along = wa + wb - 1;
    reasoning += along * router.gradThetaI.reasoning + wb * (router.gradThetaT.reasoning - router.gradThetaI.reasoning);
    agent += along * router.gradThetaI.agent + wb * (router.gradThetaT.agent - router.gradThetaI.agent);
  }
  return { reasoning, agent };
}

/** The routers' term at any α, and at each α of a curve. */
export interface RouterValues {
  at(alpha: number): LossTerms;
  readonly curve: { readonly reasoning: Float64Array; readonly agent: Float64Array };
}

export class RouterCurve {
  private kept: { fraction: number; alphas: Float64Array; values: RouterValues } | null = null;

  constructor(private readonly routers: readonly RouterTerm[]) {}

  at(fraction: number, alphas: Float64Array): RouterValues {
    if (this.kept?.fraction === fraction && this.kept.alphas === alphas) return this.kept.values;
    const terms = Array.from(alphas, (alpha) => routerFirstOrder(this.routers, alpha * fraction));
    const values: RouterValues = {
      at: (alpha) => routerFirstOrder(this.routers, alpha * fraction),
      curve: { reasoning: Float64Array.from(terms, (t) => t.reasoning), agent: Float64Array.from(terms, (t) => t.agent) },
    };
    this.kept = { fraction, alphas, values };
    return values;
  }
}
