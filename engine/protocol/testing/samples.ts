/**
 * One valid example of every request's params and result and of every event's payload. The
 * mapped types make this list complete: a method added to the map without a sample fails to compile.
 */
import type { z } from 'zod';
import type { matrixSchema } from '../common-schemas.ts';
import type { EventName, EventPayload, Params, RequestName, Result } from '../methods.ts';
import type { CraneSettings } from '../settings-schemas.ts';

const f32 = (...values: number[]) => new Float32Array(values);
const matrix = (rows: number, cols: number): z.infer<typeof matrixSchema> => ({ rows, cols, values: new Float32Array(rows * cols).map((_, i) => i / 7) });
const histogram = { edges: f32(-1, 0, 1), counts: f32(3, 5) };

export const SETTINGS: CraneSettings = {
  alpha: 0.25,
  keepQuantile: 0.5,
  tau: 0.03,
  steepness: 4.6 / 0.03,
  stages: { threshold: true, gate: true, gsp: true },
  granularity: 'coarse',
  special: { thinkRows: 0.8, lmHeadScale: 0.03, routerAlphaFraction: 1 / 3, protectedTokens: { add: [151669], remove: [151650] } },
  overrides: [{ block: { layer: 3, group: 'attention' }, gate: null, locked: true }],
};

const CRANE = { method: 'crane', settings: SETTINGS } as const;
const SUMMARY = { dir: '/m/instruct', modelType: 'qwen3', architectures: ['Qwen3ForCausalLM'], layers: 2, totalBytes: 1024, tensorCount: 3, shards: ['model.safetensors'], sideFiles: ['tokenizer.json'] };
const ANALYSIS = {
  calibration: { reasoning: '/p/reasoning.jsonl', agent: '/p/agent.jsonl', format: '/p/format.jsonl' },
  reasoningMaxNewTokens: 8192,
  agentMaxNewTokens: 2048,
  evaluation: { source: 'files' as const, reasoning: '/p/eval-reasoning.jsonl', agent: '/p/eval-agent.jsonl' },
  gsp: { maxRank: 256, rankCut: 1e-5, radius: 3, maxTokens: 4096, formatPatterns: ['<tool_call>', '<|im_end|>'] },
};
const VERIFIED = { method: CRANE, measuredOn: { source: 'held-out' as const, fraction: 0.2 }, edited: { reasoning: 1.2, agent: 0.4 }, base: { reasoning: 1.5, agent: 0.41 }, tokens: { reasoning: 900, agent: 300 }, seconds: 12.5 };
const PROJECT_FILE = { instruct: '/m/instruct', thinking: '/m/thinking', analysis: ANALYSIS, settings: SETTINGS, verified: [VERIFIED] };
const PROJECT_STATE: Result<'openProject'> = { projectDir: '/p', project: PROJECT_FILE, stages: [{ stage: 'targets', state: 'cached' }, { stage: 'gradients', state: 'stale' }] };

export const SAMPLE_PARAMS: { readonly [K in RequestName]: Params<K> } = {
  ping: {},
  cancel: { requestId: 7 },
  inspectCheckpoint: { dir: '/m/instruct' },
  listDirectories: { dir: '/data/projects' },
  openPair: { instruct: '/m/instruct', thinking: '/m/thinking' },
  openProject: { projectDir: '/p' },
  getProjectState: {},
  saveProject: { projectDir: '/p', project: PROJECT_FILE },
  listBuiltinPairs: {},
  analyze: { projectDir: '/p', settings: ANALYSIS },
  openReferenceRun: { projectDir: '/p', source: '/runs/qwen3-30b', projectors: null, projectorsLinattn: null },
  getGateMetrics: { granularity: 'fine' },
  getExpertMetrics: {},
  getPassMetrics: {},
  getBlockPasses: { block: { layer: 1, group: 'attention' }, method: CRANE },
  preview: { settings: SETTINGS, alphas: [0, 0.25, 0.5] },
  spectrum: { layer: 1, key: 'ffn_input', tau: 0.03, steepness: 153 },
  inspectLayer: { block: { layer: 0, group: 'gate.17' }, method: { method: 'dare', lambda: 0.3, dropProbability: 0.9, seed: 1 }, bins: 64, mapSize: 128 },
  verify: { method: { method: 'ties', lambda: 0.3, density: 0.5 } },
  export: { outDir: '/out/edited', dtype: 'source', shardBytes: 5 << 30, method: CRANE, overwrite: false },
};

export const SAMPLE_RESULTS: { readonly [K in RequestName]: Result<K> } = {
  ping: { protocolVersion: 1, now: 1_700_000_000_000 },
  cancel: { cancelled: true },
  inspectCheckpoint: { summary: SUMMARY, tensors: [{ name: 'model.norm.weight', dtype: 'BF16', shape: [4], shard: 'model.safetensors', bytes: 8 }] },
  listDirectories: { dir: '/data/projects', directories: ['demo', 'qwen3-4b'], truncated: false },
  openPair: {
    instruct: SUMMARY,
    thinking: { ...SUMMARY, dir: '/m/thinking' },
    report: {
      compatible: true,
      verdict: 'caveats',
      sharedTensors: 3,
      onlyInInstruct: [],
      onlyInThinking: ['extra'],
      shapeMismatches: [],
      dtypeMismatches: [{ name: 'lm_head.weight', instruct: 'BF16', thinking: 'F32' }],
      findings: [{ severity: 'warning', code: 'tensor-extra', message: '1 tensor only in Thinking' }],
      tokens: { think: [5, 6], special: [2, 3, 4] },
    },
  },
  openProject: PROJECT_STATE,
  getProjectState: null,
  saveProject: PROJECT_STATE,
  listBuiltinPairs: [{ name: 'demo-moe', label: 'Demo MoE pair', projectDir: '/data/projects/demo-moe' }],
  analyze: { projectDir: '/p', stages: [{ stage: 'gradients', cached: false, seconds: 31.5 }] },
  openReferenceRun: { projectDir: '/p', files: ['/runs/qwen3-30b/phase2_stats.json', '/runs/qwen3-30b/format_projectors.pt'], gateBlocks: 480, projectors: 96 },
  getGateMetrics: { layers: 2, groups: ['attention', 'ffn', 'norm'], gate: matrix(2, 3), sumReasoning: matrix(2, 3), sumAgent: matrix(2, 3), conflictShare: matrix(2, 3), relativeDelta: matrix(2, 3) },
  getExpertMetrics: {
    layers: 2, experts: 4, expertsPerToken: 2, gate: matrix(2, 4), sumReasoning: matrix(2, 4), sumAgent: matrix(2, 4), conflictShare: matrix(2, 4), relativeDelta: matrix(2, 4),
    routing: { reasoning: { tokens: 30, routed: matrix(2, 4), meanProbability: matrix(2, 4) }, agent: null, format: null },
  },
  getPassMetrics: {
    passes: 2, layers: 1,
    blocks: [0, 1].map((pass) => ({ pass, layer: 0, group: 'ffn', block: null, count: 12, sumReasoning: 0.01 - pass * 0.02, sumAgent: 0.003, positive: 0.002, conflictShare: 0.25, column: 'ffn' })),
    spectra: [null, 0, 1].map((pass) => ({ layer: 0, key: 'ffn_input' as const, pass, sigma: [3, 1.5] })),
  },
  getBlockPasses: {
    block: { layer: 1, group: 'attention' },
    passes: 2,
    tensors: [{
      name: 'model.layers.1.self_attn.q_proj.weight',
      passes: [0, 1].map((pass) => ({ pass, lossReasoning: -0.004 + pass * 0.006, lossAgent: 0.001, gradNormReasoning: 0.3, gradNormAgent: 0.2 })),
    }],
  },
  preview: {
    deltaLossReasoning: -0.12,
    deltaLossAgent: 0.004,
    firstOrder: { reasoning: -0.1, agent: 0.001 },
    breakdown: [
      { group: 'attention', firstOrder: { reasoning: -0.06, agent: 0.001 }, secondOrder: { reasoning: -0.01, agent: 0.002 } },
      { group: 'embed_think', firstOrder: { reasoning: -0.04, agent: 0 }, secondOrder: { reasoning: -0.01, agent: 0.001 } },
    ],
    curve: { alphas: f32(0, 0.25, 0.5), deltaLossReasoning: f32(0, -0.12, -0.2), deltaLossAgent: f32(0, 0.004, 0.02), firstOrderReasoning: f32(0, -0.1, -0.2), firstOrderAgent: f32(0, 0.001, 0.002) },
    curvature: { state: 'stale', staleReasons: ['τ 0.05 (curvature at 0.03)'] },
    range: {
      trustedUpTo: 0.25,
      tolerance: { relative: 0.1, absolute: 1e-5 },
      split: 'train',
      anchors: [{ alpha: 0.25, measured: { reasoning: -0.12, agent: 0.004 }, predicted: { reasoning: -0.115, agent: 0.0038 }, firstOrder: { reasoning: -0.1, agent: 0.001 }, agrees: true }],
    },
    effectiveScale: matrix(2, 3),
    retainedNorm: matrix(2, 3),
  },
  spectrum: { layer: 1, key: 'ffn_input', sigmaRatio: f32(1, 0.1, 0.001), retainedFraction: 0.93 },
  inspectLayer: {
    block: { layer: 0, group: 'gate.17' },
    tensors: [
      {
        name: 'model.layers.0.mlp.experts.17.gate_proj.weight',
        shape: [8, 4],
        norms: { instruct: 3, thinking: 3.1, edited: 3.05, delta: 0.2 },
        values: { instruct: histogram, thinking: histogram, edited: histogram },
        delta: histogram,
        keptFraction: 0.5,
        deltaMap: { before: matrix(8, 4), after: matrix(8, 4) },
      },
    ],
  },
  verify: VERIFIED,
  export: { outDir: '/out/edited', files: ['model.safetensors', 'config.json'], totalBytes: 2048, recipe: { method: 'crane', alpha: 0.25, inputs: [null, true] }, seconds: 3 },
};

export const SAMPLE_EVENTS: { readonly [E in EventName]: EventPayload<E> } = {
  progress: { requestId: 4, stage: 'gradients', fraction: 0.5, etaSeconds: 12 },
  stageDone: { requestId: 4, stage: 'gradients', cached: false, seconds: 30 },
  log: { level: 'info', message: 'layer 3 of 28', requestId: null },
  error: { code: 'engine-error', message: 'cache write failed' },
};
