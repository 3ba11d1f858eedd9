/**
 * How far the preview can be trusted: the model next to the losses measured at analysis time,
 * and which of the current settings make its curvature terms stale.
 *
 *   previewRange(anchors, split, predict) → PreviewRange
 *   curvatureStaleReasons(basis, settings) → string[]   empty when the curvature is current
 *
 * An anchor agrees by the preview's stated aim: ΔL_R within TOLERANCE.relative of the
 * measurement, and ΔL_A of the measured sign. ΔL_A is often 1000× smaller than ΔL_R and made of
 * terms beyond second order, so its size is not promised; under TOLERANCE.absolute (the level of
 * float32 noise on these losses) either value counts as agreeing.
 * `trustedUpTo` is the largest anchor α up to which every anchor agrees (0 when the smallest
 * already disagrees): the UI shades the α beyond it as extrapolation.
 */
import type { CraneDeltaSettings } from '../crane/crane-edit.ts';
import type { CurvatureBasis } from './preview-curvature.ts';
import type { LossTerms } from './preview-quadratic.ts';

export const TOLERANCE = { relative: 0.1, absolute: 1e-5 } as const;

export interface RangeAnchor {
  readonly alpha: number;
  readonly measured: LossTerms;
  /** The preview's total and its first-order part at the anchor's settings. */
  readonly predicted: LossTerms;
  readonly firstOrder: LossTerms;
  readonly agrees: boolean;
}

export interface PreviewRange {
  readonly tolerance: typeof TOLERANCE;
  /** Which sequences the anchors were measured on (the gradients' split). */
  readonly split: string;
  readonly anchors: readonly RangeAnchor[];
  readonly trustedUpTo: number;
}

export function previewRange(
  anchors: readonly { readonly alpha: number; readonly measured: LossTerms }[],
  split: string,
  predict: (alpha: number) => { predicted: LossTerms; firstOrder: LossTerms },
): PreviewRange {
  const checked = [...anchors].sort((a, b) => a.alpha - b.alpha).map((anchor) => {
    const { predicted, firstOrder } = predict(anchor.alpha);
    const agrees = within(predicted.reasoning, anchor.measured.reasoning) && sameSign(predicted.agent, anchor.measured.agent);
    return { alpha: anchor.alpha, measured: anchor.measured, predicted, firstOrder, agrees };
  });
  const firstOff = checked.findIndex((a) => !a.agrees);
  const trusted = firstOff < 0 ? checked.at(-1) : checked[firstOff - 1];
  return { tolerance: TOLERANCE, split, anchors: checked, trustedUpTo: trusted?.alpha ?? 0 };
}

function within(predicted: number, measured: number): boolean {
  return Math.abs(predicted - measured) <= Math.max(TOLERANCE.relative * Math.abs(measured), TOLERANCE.absolute);
}

function sameSign(predicted: number, measured: number): boolean {
  return Math.abs(measured) < TOLERANCE.absolute || Math.sign(predicted) === Math.sign(measured);
}

export function curvatureStaleReasons(basis: CurvatureBasis, settings: Pick<CraneDeltaSettings, 'keepQuantile' | 'tau' | 'steepness' | 'stages'>): string[] {
  const reasons: string[] = [];
  if (settings.stages.threshold !== basis.threshold) reasons.push(`thresholding ${onOff(settings.stages.threshold)} (curvature measured with it ${onOff(basis.threshold)})`);
  else if (settings.stages.threshold && settings.keepQuantile !== basis.keepQuantile) reasons.push(`q ${settings.keepQuantile} (curvature at ${basis.keepQuantile})`);
  if (settings.stages.gsp !== basis.gsp) reasons.push(`GSP ${onOff(settings.stages.gsp)} (curvature measured with it ${onOff(basis.gsp)})`);
  else if (settings.stages.gsp) {
    if (settings.tau !== basis.tau) reasons.push(`τ ${settings.tau} (curvature at ${basis.tau})`);
    if (settings.steepness !== basis.steepness) reasons.push(`k ${round(settings.steepness)} (curvature at ${round(basis.steepness)})`);
  }
  return reasons;
}

const onOff = (on: boolean) => (on ? 'on' : 'off');
const round = (x: number) => Number(x.toPrecision(4));
