/**
 * Per-pass GSP spectra of a looped model, collected beside the projectors stage's pooled Grams.
 *
 *   const spectra = new PassSpectra(hidden, passes);
 *   spectra.add(activations)                        // every captured LayerActivations, any pass
 *   spectra.spectra(pooled, options) → PassSpectrum[]   σ of each pass's Gram and of the pooled one
 *
 * The projectors themselves come from every pass's rows at once (the pooled Gram the stage
 * builds, the method's default: a weight used at two depths protects the directions of both).
 * Each pass's own Gram is kept only to show how the two depths' spectra differ. Memory: one more
 * d×d float64 accumulator per pass, layer and key (passes × the stage's own).
 */
import { GramAccumulator } from '../crane/gram-accumulator.ts';
import { projectorOfRows, type GspProjector, type ProjectorOptions } from '../crane/gsp-projector.ts';
import { projectorKey } from '../crane/tensor-classification.ts';
import type { LayerActivations } from '../model/activations.ts';
import type { PassSpectrum } from '../protocol/pass-schemas.ts';

/** The keys captureActivations feeds (a linear-attention inner key has no per-pass capture). */
const KEYS = ['attn_input', 'ffn_input'] as const;

export class PassSpectra {
  private readonly grams = new Map<string, GramAccumulator>();

  constructor(private readonly dim: number, private readonly passes: number) {}

  add(activations: LayerActivations): void {
    this.gram(activations.pass, projectorKey(activations.layer, 'attn_input')).addRows(activations.attnInput);
    this.gram(activations.pass, projectorKey(activations.layer, 'ffn_input')).addRows(activations.ffnInput);
  }

  /** Per layer and key: the pooled projector's σ (pass null) and each pass's, in that order. */
  spectra(layers: number, pooled: ReadonlyMap<string, GspProjector>, options: Omit<ProjectorOptions, 'rowCount'>): PassSpectrum[] {
    const out: PassSpectrum[] = [];
    for (let layer = 0; layer < layers; layer++) {
      for (const key of KEYS) {
        const name = projectorKey(layer, key);
        out.push({ layer, key, pass: null, sigma: [...pooled.get(name)?.sigma ?? []] });
        for (let pass = 0; pass < this.passes; pass++) {
          const gram = this.grams.get(`${pass}:${name}`);
          const projector = gram === undefined ? undefined : projectorOfRows(gram, options);
          out.push({ layer, key, pass, sigma: [...projector?.sigma ?? []] });
        }
      }
    }
    return out;
  }

  private gram(pass: number, name: string): GramAccumulator {
    const key = `${pass}:${name}`;
    let gram = this.grams.get(key);
    if (gram === undefined) {
      gram = new GramAccumulator(this.dim);
      this.grams.set(key, gram);
    }
    return gram;
  }
}
