/** The targets stage against the model's context and embedding, and the chat-template options it renders with. */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { NANBEIGE_STYLE_TEMPLATE_PATH } from '../calibration/chat-template.ts';
import { testTokenizer } from '../calibration/testing/fixture.ts';
import { ModelTokenizer } from '../calibration/tokenizer.ts';
import { Checkpoint } from '../io/checkpoint.ts';
import { withTempDir } from '../io/testing/fixtures.ts';
import { initBackend } from '../tensor/backend.ts';
import type { PipelineSettings } from './analysis-settings.ts';
import { readSequences } from './calibration-sequences.ts';
import { hashInputs } from './input-hashing.ts';
import { pipelinePaths } from './pipeline-folder.ts';
import { StageClock } from './progress.ts';
import { runTargets } from './targets-stage.ts';
import { writeTinyProject, type TinyProject } from './testing/tiny-project.ts';

beforeAll(async () => {
  await initBackend('wasm');
});

async function setMaxPositions(dir: string, maxPositions: number): Promise<void> {
  const file = join(dir, 'config.json');
  const config = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  await writeFile(file, JSON.stringify({ ...config, max_position_embeddings: maxPositions }));
}

/** Runs only the targets stage; returns the warnings it logged. */
async function targets(project: TinyProject, root: string, settings: PipelineSettings): Promise<string[]> {
  const log: string[] = [];
  const instruct = await Checkpoint.open(project.instruct);
  const thinking = await Checkpoint.open(project.thinking);
  try {
    const paths = pipelinePaths(join(root, 'analysis'));
    await mkdir(paths.targets, { recursive: true });
    const inputs = await hashInputs(instruct, thinking, settings.analysis.calibration);
    await runTargets({ instruct, thinking, inputs, settings, paths, callbacks: { onLog: (m) => log.push(m) } }, new StageClock('targets'));
    return log;
  } finally {
    await Promise.all([instruct.close(), thinking.close()]);
  }
}

describe('targets stage', () => {
  it('cuts sequences past max_position_embeddings by default, naming each file:line, and refuses them under refuse', () => withTempDir(async (root) => {
    const project = await writeTinyProject(root);
    const full = await targets(project, root, project.settings).then(() => readSequences(pipelinePaths(join(root, 'analysis')).sequences));
    const longest = Math.max(...full.map((s) => s.ids.length));
    const limit = longest - 5;
    for (const dir of [project.instruct, project.thinking]) await setMaxPositions(dir, limit);

    const warnings = await targets(project, root, project.settings);
    const cut = await readSequences(pipelinePaths(join(root, 'analysis')).sequences);
    expect(Math.max(...cut.map((s) => s.ids.length))).toBe(limit);
    const over = full.filter((s) => s.ids.length > limit);
    expect(over.length).toBeGreaterThan(0);
    for (const s of over) {
      expect(warnings.some((w) => w.startsWith(`warning: ${s.source}: has ${s.ids.length} tokens, more than the model's context (max_position_embeddings ${limit} in ${join(project.instruct, 'config.json')}): cut`))).toBe(true);
    }
    cut.filter((s) => s.lossMask !== undefined).forEach((s) => expect(s.lossMask).toHaveLength(s.ids.length));

    const refused = await targets(project, root, { ...project.settings, longSequences: 'refuse' }).catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(new RegExp(`^${root}/data/[a-z-]+\\.jsonl:\\d+: has \\d+ tokens, more than the model's context`));
  }));

  it('refuses an Instruct tokenizer with ids the embedding has no row for', () => withTempDir(async (root) => {
    const project = await writeTinyProject(root);
    const { tokenizerJson } = await testTokenizer();
    const json = structuredClone(tokenizerJson) as { model: { vocab: Record<string, number> } };
    json.model.vocab['Ġweather'] = 2 ** 31;
    await writeFile(join(project.instruct, 'tokenizer.json'), JSON.stringify(json));
    await expect(targets(project, root, project.settings)).rejects.toThrow(`${join(project.instruct, 'tokenizer.json')}: token "Ġweather" has id ${2 ** 31}, outside the embedding`);
  }));

  it('renders every chat with the analysis chat-template options (tool_call_format)', () => withTempDir(async (root) => {
    const project = await writeTinyProject(root);
    await copyFile(NANBEIGE_STYLE_TEMPLATE_PATH, join(project.instruct, 'chat_template.jinja'));
    const tokenizer = await ModelTokenizer.load(project.instruct);
    const rendered = async (chatTemplate: PipelineSettings['analysis']['chatTemplate']) => {
      await targets(project, root, { ...project.settings, analysis: { ...project.settings.analysis, chatTemplate } });
      const sequences = await readSequences(pipelinePaths(join(root, 'analysis')).sequences);
      return (set: string) => sequences.filter((s) => s.set === set).map((s) => tokenizer.decode(s.ids)).join('\n');
    };
    const xml = await rendered(undefined);
    expect(xml('format')).toContain('<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>');
    // One options object reaches every render (format chats, D_R/D_A targets and their prompts).
    const json = await rendered({ toolCallFormat: 'json' });
    expect(json('format')).toContain('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>');
    expect(json('format')).not.toContain('<function=');
  }));
});
