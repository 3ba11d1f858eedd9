/**
 * Architectures the studio merges only from an imported reference run: it has no runtime for them,
 * so Analyze, Verify and the preview cannot run, while a reference run's S and projectors give the
 * heatmap, tuning and export everything they read. One text, shown by the pair report (a finding)
 * and by the Analysis view (in place of Analyze), so both say the same.
 *
 *   referenceOnlyNote(architectures) → the note, or null when the studio runs the architecture
 */

/** Architecture class → the family's name, for the architectures the runtime does not cover this round. */
const REFERENCE_ONLY: Readonly<Record<string, string>> = {
  Qwen3NextForCausalLM: 'Qwen3-Next',
};

export function referenceOnlyNote(architectures: readonly string[]): string | null {
  const family = architectures.map((a) => (Object.hasOwn(REFERENCE_ONLY, a) ? REFERENCE_ONLY[a] : undefined)).find((f) => f !== undefined);
  if (family === undefined) return null;
  return `${family} has no runtime in the studio this round: Analyze, Verify and the preview cannot run it. `
    + 'Open a reference run under Analysis (phase2_stats.json, format_projectors.pt and format_projectors_linattn_inner.pt from the CRANE reference pipeline): '
    + 'the heatmap, tuning and export work on it.';
}
