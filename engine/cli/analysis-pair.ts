/**
 * `crane merge --analysis DIR` with a pair other than the one DIR analysed: its gates and
 * projectors describe that pair, so the export would silently apply another pair's analysis.
 * pipeline.json records the folders analysed; a different folder is said on stderr (a moved copy
 * of the same checkpoints is legitimate, so it is a warning, not a refusal).
 */
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { readPipelineRecord, type PipelineRecord } from '../pipeline/pipeline-folder.ts';

export function analysisPairWarning(analysisDir: string, record: Pick<PipelineRecord, 'instruct' | 'thinking'>, pair: { instruct: string; thinking: string }): string | undefined {
  const differs = (['instruct', 'thinking'] as const).filter((side) => resolve(record[side]) !== resolve(pair[side]));
  if (differs.length === 0) return undefined;
  return `the analysis in ${analysisDir} was made for ${differs.map((side) => `${side === 'instruct' ? 'Instruct' : 'Thinking'} ${record[side]}`).join(' and ')}, not ${differs.map((side) => pair[side]).join(' and ')}: its gates and projectors describe that pair`;
}

/** The warning for a pipeline folder, after resolving symlinks; nothing for a folder without pipeline.json. */
export async function checkAnalysisPair(analysisDir: string, pair: { instruct: string; thinking: string }, warn: (message: string) => void): Promise<void> {
  let record: PipelineRecord;
  try {
    record = await readPipelineRecord(analysisDir);
  } catch (error) {
    if (error instanceof CheckpointError && error.code === 'not-found') return;
    throw error;
  }
  const real = (path: string) => realpath(path).catch(() => resolve(path));
  const message = analysisPairWarning(analysisDir, { instruct: await real(record.instruct), thinking: await real(record.thinking) }, { instruct: await real(pair.instruct), thinking: await real(pair.thinking) });
  if (message !== undefined) warn(message);
}
