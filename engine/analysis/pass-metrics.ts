/**
 * The per-pass analysis artifact of a looped model (protocol/pass-schemas.ts), a small JSON file.
 *
 *   passBlocks(accumulators)              → PassBlock[]   accumulators[p] fed with pass p's gradient parts
 *   writePassMetrics(file, metrics) / readPassMetrics(file)   validated; a bad file is named
 *   writePassSpectra(file, spectra) / readPassSpectra(file)   the projectors stage's part
 *
 * Σs is linear in the gradient, so a block's sumReasoning/sumAgent over the passes add up to the
 * combined gate table's Σs_R/Σs_A (up to float rounding); Σp and the conflict share are not
 * additive and are each pass's own.
 */
import { writeFileAtomic } from '../io/atomic-file.ts';
import { readJsonFile } from '../io/json-file.ts';
import type { GateAccumulator } from '../crane/gate-accumulator.ts';
import { z } from 'zod';
import { passSpectrumSchema, storedPassMetricsSchema, type PassSpectrum, type StoredPassBlock, type StoredPassMetrics } from '../protocol/pass-schemas.ts';

export const PASS_METRICS_FILE = 'pass-metrics.json';
/** The projectors stage's per-pass and pooled spectra of a looped model. */
export const PASS_SPECTRA_FILE = 'pass-spectra.json';
const spectraSchema = z.array(passSpectrumSchema);

export function passBlocks(accumulators: readonly GateAccumulator[]): StoredPassBlock[] {
  return accumulators.flatMap((accumulator, pass) =>
    accumulator.blocks().flatMap(({ id, sums }) => id.layer === null ? [] : [{
      pass,
      layer: id.layer,
      group: id.group,
      block: id.block,
      count: sums.count,
      sumReasoning: sums.reasoning,
      sumAgent: sums.agent,
      positive: sums.positive,
      conflictShare: sums.totalMass > 0 ? sums.conflictMass / sums.totalMass : 0,
    }]));
}

export async function writePassMetrics(file: string, metrics: StoredPassMetrics): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(storedPassMetricsSchema.parse(metrics))}\n`);
}

/** undefined when the file does not exist (a model without a loop has none). */
export function readPassMetrics(file: string): Promise<StoredPassMetrics | undefined> {
  return readJsonFile(file, storedPassMetricsSchema, 'a per-pass metrics file');
}

export async function writePassSpectra(file: string, spectra: readonly PassSpectrum[]): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(spectraSchema.parse(spectra))}\n`);
}

/** undefined when the file does not exist. */
export function readPassSpectra(file: string): Promise<PassSpectrum[] | undefined> {
  return readJsonFile(file, spectraSchema, 'a per-pass spectra file');
}
