/**
 * The CRANE analysis of the built-in demo pair with the spec's defaults (decode budgets capped:
 * the demo's replies are short), cached in a folder so the demo tools share one run.
 */
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { demoPaths } from '../../engine/demo/demo-layout.ts';
import { defaultAnalysisSettings } from '../../engine/pipeline/analysis-settings.ts';
import { formatDuration } from '../../engine/pipeline/progress-text.ts';
import { runAnalysis } from '../../engine/pipeline/run-analysis.ts';

export const DEFAULT_DEMO_ANALYSIS_DIR = join(tmpdir(), 'crane-demo-analysis');

/** The analysis cache of a built-in pair (`--pair` of the demo tools): dense is the default folder, any other its own. */
export function demoAnalysisDir(pair: string): string {
  return pair === 'dense' ? DEFAULT_DEMO_ANALYSIS_DIR : `${DEFAULT_DEMO_ANALYSIS_DIR}-${pair}`;
}

/** Runs (or reuses) the analysis; returns its wall time in seconds. */
export async function runDemoAnalysis(paths: ReturnType<typeof demoPaths>, outDir: string, options: { fresh?: boolean; log?: (line: string) => void } = {}): Promise<number> {
  if (options.fresh === true) await rm(outDir, { recursive: true, force: true });
  const defaults = defaultAnalysisSettings({ reasoning: paths.reasoning, agent: paths.toolUse, format: paths.format });
  const settings = { ...defaults, analysis: { ...defaults.analysis, reasoningMaxNewTokens: 1024, agentMaxNewTokens: 512 } };
  const run = await runAnalysis({
    instruct: paths.instruct, thinking: paths.thinking, outDir, settings,
    onStageDone: (e) => options.log?.(`  ${e.stage.padEnd(10)} ${e.cached ? 'cached' : formatDuration(e.seconds)}`),
  });
  return run.seconds;
}
