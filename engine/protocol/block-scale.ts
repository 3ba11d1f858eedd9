/**
 * The α·S rule: how far one block's thresholded delta is scaled, given the gate's computed S and
 * the researcher's override. The engine's edit and preview (crane/gate-scales.ts) and the UI's
 * heatmap (which follows a slider without a round trip) all resolve S here.
 *
 *   overrideScale(override)                 → the S an override sets, or undefined
 *   blockScale(gateOn, computed, override?) → S; the block's delta is scaled by α·S
 */

/**
 * A locked block keeps θ_I exactly (S = 0); an unlocked one with a hand-set S uses it; one whose
 * S is null only records that the block was touched, and keeps the computed value.
 */
export function overrideScale(override: { readonly gate: number | null; readonly locked: boolean }): number | undefined {
  if (override.locked) return 0;
  return override.gate ?? undefined;
}

/**
 * A hand-set S wins, also with the gate stage off (it is the researcher's explicit choice);
 * otherwise the computed S_CTG with the gate on, and 1 with it off. `computed` undefined is a
 * block the gate never scored: it is edited at S = 1, like the gate off.
 */
export function blockScale(gateOn: boolean, computed: number | undefined, override?: number): number {
  if (override !== undefined) return override;
  return gateOn ? computed ?? 1 : 1;
}
