import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../io/checkpoint-error.ts';
import { withTempDir } from '../io/testing/fixtures.ts';
import { defaultAnalysisSettings } from './analysis-settings.ts';
import { PIPELINE_FILE, readPipelineRecord, resultSettings, writePipelineRecord, type PipelineRecord } from './pipeline-folder.ts';

const record: PipelineRecord = {
  instruct: '/models/instruct',
  thinking: '/models/thinking',
  settings: defaultAnalysisSettings({ reasoning: '/data/r.jsonl', agent: '/data/a.jsonl', format: '/data/f.jsonl' }),
  inputs: { instruct: { 'model.safetensors': 'aa11' }, thinking: { 'model.safetensors': 'bb22' }, reasoning: 'cc33', agent: 'dd44', format: 'ee55' },
};

async function codeOf(work: Promise<unknown>): Promise<string> {
  const error: unknown = await work.then(() => undefined, (e: unknown) => e);
  return error instanceof CheckpointError ? `${error.code}: ${error.message}` : `not a CheckpointError: ${String(error)}`;
}

describe('pipeline.json', () => {
  it('reads back what was written', () => withTempDir(async (dir) => {
    await writePipelineRecord(dir, record);
    expect(await readPipelineRecord(dir)).toEqual(record);
  }));

  it('is not-found in a folder crane analyze did not make', () => withTempDir(async (dir) => {
    expect(await codeOf(readPipelineRecord(dir))).toMatch(/^not-found: .*pipeline\.json: not an analysis folder/);
  }));

  it('refuses a record of another shape, naming the file and the field', () => withTempDir(async (dir) => {
    await writeFile(join(dir, PIPELINE_FILE), JSON.stringify({ ...record, settings: { ...record.settings, batchSequences: 0 } }));
    const message = await codeOf(readPipelineRecord(dir));
    expect(message).toContain(`metadata: ${join(dir, PIPELINE_FILE)}: is not an analysis record`);
    expect(message).toContain('batchSequences');
  }));

  it('keeps the long-sequence policy, which shapes the results (absent is the default, cut)', () => withTempDir(async (dir) => {
    const warn: PipelineRecord = { ...record, settings: { ...record.settings, longSequences: 'warn' } };
    await writePipelineRecord(dir, warn);
    expect(await readPipelineRecord(dir)).toEqual(warn);
    expect(resultSettings(warn.settings)).not.toEqual(resultSettings(record.settings));
    expect(resultSettings({ ...record.settings, longSequences: 'cut' })).toEqual(resultSettings(record.settings));
  }));
});
