import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { f32Tensor, withTempDir, writeFixtureCheckpoint } from '../io/testing/fixtures.ts';
import type { HandlerContext } from '../protocol/handlers.ts';
import { REQUESTS } from '../protocol/methods.ts';
import { SAMPLE_PARAMS } from '../protocol/testing/samples.ts';
import { createEngineHandlers } from './engine-handlers.ts';

const CONFIG = { model_type: 'qwen3', architectures: ['Qwen3ForCausalLM'], num_hidden_layers: 1, hidden_size: 4 };
const ctx: HandlerContext = { requestId: 1, signal: new AbortController().signal, emit: () => undefined };
const handlers = createEngineHandlers();
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'ok', (error: { code?: string }) => error.code);

const makeCheckpoint = (dir: string, extra: string[] = []) =>
  writeFixtureCheckpoint(dir, [f32Tensor('model.embed_tokens.weight', [6, 4], 1), ...extra.map((name, i) => f32Tensor(name, [4], i + 2))], { config: CONFIG });

describe('engine handlers', () => {
  it('ping reports the protocol version', async () => {
    expect(REQUESTS.ping.result.parse(await handlers.ping({}, ctx)).protocolVersion).toBe(1);
  });

  it('inspectCheckpoint describes a checkpoint in the protocol shape', async () => {
    await withTempDir(async (root) => {
      const dir = await makeCheckpoint(join(root, 'm'));
      const detail = REQUESTS.inspectCheckpoint.result.parse(await handlers.inspectCheckpoint({ dir }, ctx));
      expect(detail.summary).toEqual({ dir, modelType: 'qwen3', architectures: ['Qwen3ForCausalLM'], layers: 1, totalBytes: 96, tensorCount: 1, shards: ['model.safetensors'], sideFiles: [] });
      expect(detail.tensors).toEqual([{ name: 'model.embed_tokens.weight', dtype: 'F32', shape: [6, 4], shard: 'model.safetensors', bytes: 96 }]);
    });
  });

  it('openPair compares the two checkpoints', async () => {
    await withTempDir(async (root) => {
      const instruct = await makeCheckpoint(join(root, 'i'));
      const thinking = await makeCheckpoint(join(root, 't'), ['model.extra.weight']);
      const pair = REQUESTS.openPair.result.parse(await handlers.openPair({ instruct, thinking }, ctx));
      expect(pair.report.compatible).toBe(true);
      expect(pair.report.onlyInThinking).toEqual(['model.extra.weight']);
      expect(pair.thinking.tensorCount).toBe(2);
    });
  });

  it('maps paths and checkpoint failures to typed errors', async () => {
    await withTempDir(async (root) => {
      const broken = join(root, 'broken');
      await mkdir(broken);
      await writeFile(join(broken, 'config.json'), '{not json');
      expect(await codeOf(handlers.inspectCheckpoint({ dir: 'relative/dir' }, ctx))).toBe('invalid-path');
      expect(await codeOf(handlers.inspectCheckpoint({ dir: join(root, 'missing') }, ctx))).toBe('not-found');
      expect(await codeOf(handlers.inspectCheckpoint({ dir: broken }, ctx))).toBe('invalid-checkpoint');
      expect(await codeOf(handlers.openPair({ instruct: broken, thinking: join(root, 'missing') }, ctx))).toBe('invalid-checkpoint');
    });
  });

  it('before a project is open: null project state, and the project views answer not-found', async () => {
    const fresh = createEngineHandlers();
    expect(await fresh.getProjectState({}, ctx)).toBeNull();
    expect(await codeOf(fresh.analyze({ ...SAMPLE_PARAMS.analyze, projectDir: '/no/such/project' }, ctx))).toBe('not-found');
    expect(await codeOf(fresh.export(SAMPLE_PARAMS.export, ctx))).toBe('not-found');
    expect(await codeOf(fresh.getGateMetrics({ granularity: 'coarse' }, ctx))).toBe('not-found');
  });
});
