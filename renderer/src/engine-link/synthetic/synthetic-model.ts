/**
 * A made-up but self-consistent analysis (gate metrics, spectra, first-order preview) so the UI
 * can be exercised — and its latency measured — before the real engine answers these methods.
 * Every view labels synthetic data as such.
 */
import type { ActivationKey, CraneSettings, GateMetrics, Granularity, Matrix, Params, Preview, Spectrum } from '../../protocol.ts';
import { blockScale, maskWeight, overrideScale, SeededRandom } from '../../protocol.ts';

export interface SyntheticShape {
  readonly layers: number;
  /** 0: a dense model (ffn); otherwise routed experts per layer. */
  readonly experts: number;
}

const RANK = 256;

function groupsFor(shape: SyntheticShape, granularity: Granularity): string[] {
  if (granularity === 'coarse') return shape.experts > 0 ? ['attention', 'expert', 'shared_expert', 'router', 'norm'] : ['attention', 'ffn', 'norm'];
  const attn = ['q', 'k', 'v', 'o'];
  if (shape.experts === 0) return [...attn, 'gate', 'up', 'down'];
  // One column per routed expert (its gate/up/down pooled), as the engine's fine blocks.
  const experts = Array.from({ length: shape.experts }, (_, e) => `expert.${e}`);
  return [...attn, ...experts];
}

const isProjected = (group: string) => /^(attention|q|k|v|ffn|expert|shared_expert|gate|up)(\.|$)/.test(group);
const keyOf = (group: string): ActivationKey => (/^(attention|q|k|v|o)(\.|$)/.test(group) ? 'attn_input' : 'ffn_input');

export class SyntheticModel {
  private readonly metrics = new Map<Granularity, GateMetrics>();
  private readonly spectra = new Map<string, Float32Array<ArrayBuffer>>();

  constructor(readonly shape: SyntheticShape) {}

  gateMetrics(granularity: Granularity): GateMetrics {
    const cached = this.metrics.get(granularity);
    if (cached !== undefined) return cached;
    const groups = groupsFor(this.shape, granularity);
    const rows = this.shape.layers;
    const cols = groups.length;
    const random = new SeededRandom(granularity === 'coarse' ? 11 : 12);
    const normal = () => random.normal();
    const m = () => ({ rows, cols, values: new Float32Array(rows * cols) });
    const out: GateMetrics = { layers: rows, groups, gate: m(), sumReasoning: m(), sumAgent: m(), conflictShare: m(), relativeDelta: m() };
    const ref = groups.findIndex((g) => g === 'ffn' || g === 'expert' || g === 'gate');
    for (let l = 0; l < rows; l++) {
      const depth = l / Math.max(1, rows - 1);
      for (let c = 0; c < cols; c++) {
        const i = l * cols + c;
        const group = groups[c] ?? '';
        const reasonBias = 0.4 + 1.2 * Math.sin(Math.PI * depth) + (group.startsWith('attention') || group === 'q' ? 0.3 : 0);
        const agentBias = -0.3 - 0.8 * depth ** 2 + (group === 'norm' ? 0.2 : 0);
        out.sumReasoning.values[i] = reasonBias * (1 + 0.35 * normal());
        out.sumAgent.values[i] = agentBias * (1 + 0.5 * normal());
        out.conflictShare.values[i] = Math.min(0.95, Math.max(0.05, 0.35 + 0.25 * depth + 0.08 * normal()));
        out.relativeDelta.values[i] = Math.max(0.001, (0.012 + 0.03 * depth) * (1 + 0.25 * normal()));
        const raw = Math.max(0, reasonBias * (1 - depth * 0.6) + 0.25 * normal());
        out.gate.values[i] = c === ref ? 1 : group === 'router' ? 0 : raw;
      }
    }
    this.metrics.set(granularity, out);
    return out;
  }

  sigmaRatio(layer: number, key: ActivationKey): Float32Array<ArrayBuffer> {
    const id = `${layer}:${key}`;
    const cached = this.spectra.get(id);
    if (cached !== undefined) return cached;
    const decay = 1.3 + 0.9 * new SeededRandom(layer * 2 + (key === 'attn_input' ? 0 : 1)).next();
    const values: number[] = [];
    for (let i = 0; i < RANK; i++) {
      const r = (i + 1) ** -decay;
      if (r <= 1e-5) break;
      values.push(r);
    }
    const spectrum = new Float32Array(values);
    this.spectra.set(id, spectrum);
    return spectrum;
  }

  /** Share of the update's energy the mask removes for one layer and key. */
  removedEnergy(layer: number, key: ActivationKey, tau: number, steepness: number): number {
    const ratios = this.sigmaRatio(layer, key);
    let removed = 0;
    let total = 0;
    for (const r of ratios) {
      const e = Math.sqrt(r);
      total += e;
      removed += e * maskWeight(r, tau, steepness);
    }
    return (0.45 * removed) / total;
  }

  spectrum({ layer, key, tau, steepness }: Params<'spectrum'>): Spectrum {
    const sigmaRatio = this.sigmaRatio(Math.min(layer, this.shape.layers - 1), key);
    return { layer, key, sigmaRatio, retainedFraction: 1 - this.removedEnergy(layer, key, tau, steepness) };
  }

  preview(settings: CraneSettings, alphas: number[]): Preview {
    const metrics = this.gateMetrics(settings.granularity);
    const { rows, cols } = metrics.gate;
    const effectiveScale: Matrix = { rows, cols, values: new Float32Array(rows * cols) };
    const retainedNorm: Matrix = { rows, cols, values: new Float32Array(rows * cols) };
    const threshold = settings.stages.threshold ? 1 + 0.6 * (0.5 - settings.keepQuantile) : 0.8;
    let slopeR = 0;
    let slopeA = 0;
    const removed = new Map<string, number>();
    for (let l = 0; l < rows; l++) {
      for (let c = 0; c < cols; c++) {
        const i = l * cols + c;
        const group = metrics.groups[c] ?? '';
        const override = settings.overrides.find((o) => o.block.layer === l && o.block.group === group);
        const gate = blockScale(settings.stages.gate, metrics.gate.values[i], override === undefined ? undefined : overrideScale(override));
        effectiveScale.values[i] = settings.alpha * gate;
        let r = 0;
        if (settings.stages.gsp && isProjected(group)) {
          const id = `${l}:${keyOf(group)}`;
          r = removed.get(id) ?? this.removedEnergy(l, keyOf(group), settings.tau, settings.steepness);
          removed.set(id, r);
        }
        retainedNorm.values[i] = gate === 0 ? 0 : Math.sqrt(1 - r);
        const scale = (gate * threshold) / (rows * cols);
        slopeR -= scale * (metrics.sumReasoning.values[i] ?? 0) * (1 - 0.2 * r);
        slopeA -= scale * (metrics.sumAgent.values[i] ?? 0) * (1 - 1.6 * r);
      }
    }
    const firstR = (a: number) => slopeR * a * 0.9;
    const firstA = (a: number) => slopeA * a * 0.9;
    const lossR = (a: number) => firstR(a) + 0.35 * a * a;
    const lossA = (a: number) => firstA(a) + 0.12 * a * a;
    const { alpha } = settings;
    // One made-up group carries it all, so the breakdown sums to the totals as the engine's does.
    const term = { group: 'attention' as const, firstOrder: { reasoning: firstR(alpha), agent: firstA(alpha) }, secondOrder: { reasoning: 0.35 * alpha * alpha, agent: 0.12 * alpha * alpha } };
    return {
      deltaLossReasoning: lossR(alpha),
      deltaLossAgent: lossA(alpha),
      firstOrder: term.firstOrder,
      breakdown: [term],
      curve: {
        alphas: new Float32Array(alphas),
        deltaLossReasoning: new Float32Array(alphas.map(lossR)),
        deltaLossAgent: new Float32Array(alphas.map(lossA)),
        firstOrderReasoning: new Float32Array(alphas.map(firstR)),
        firstOrderAgent: new Float32Array(alphas.map(firstA)),
      },
      curvature: { state: 'current', staleReasons: [] },
      range: null,
      effectiveScale,
      retainedNorm,
    };
  }
}
