import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTempDir } from '../io/testing/fixtures.ts';
import { defaultAnalysisSettings } from '../pipeline/analysis-settings.ts';
import { writePipelineRecord } from '../pipeline/pipeline-folder.ts';
import { analysisPairWarning, checkAnalysisPair } from './analysis-pair.ts';

describe('merge --analysis of another pair', () => {
  it('names the side whose folder differs from the one analysed', () => {
    const record = { instruct: '/m/instruct', thinking: '/m/thinking' };
    expect(analysisPairWarning('/a', record, { instruct: '/m/instruct', thinking: '/m/./thinking' })).toBeUndefined();
    expect(analysisPairWarning('/a', record, { instruct: '/m/instruct', thinking: '/other/thinking' }))
      .toBe('the analysis in /a was made for Thinking /m/thinking, not /other/thinking: its gates and projectors describe that pair');
  });

  it('reads pipeline.json, follows symlinks to the folders analysed, and is silent without pipeline.json', () => withTempDir(async (root) => {
    const [instruct, thinking, analysis] = ['instruct', 'thinking', 'analysis'].map((d) => join(root, d)) as [string, string, string];
    await Promise.all([mkdir(instruct), mkdir(thinking), mkdir(analysis)]);
    const warnings: string[] = [];
    const warn = (m: string) => void warnings.push(m);
    await checkAnalysisPair(analysis, { instruct: '/x', thinking: '/y' }, warn);
    expect(warnings).toEqual([]);
    await writePipelineRecord(analysis, {
      instruct, thinking, settings: defaultAnalysisSettings({ reasoning: '/r.jsonl', agent: '/a.jsonl', format: '/f.jsonl' }),
      inputs: { instruct: {}, thinking: {}, reasoning: 'r', agent: 'a', format: 'f' },
    });
    await symlink(thinking, join(root, 'thinking-link'));
    await checkAnalysisPair(analysis, { instruct, thinking: join(root, 'thinking-link') }, warn);
    expect(warnings).toEqual([]);
    await checkAnalysisPair(analysis, { instruct: thinking, thinking }, warn);
    expect(warnings).toEqual([`the analysis in ${analysis} was made for Instruct ${instruct}, not ${thinking}: its gates and projectors describe that pair`]);
  }));
});
