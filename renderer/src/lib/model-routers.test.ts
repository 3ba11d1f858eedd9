import { describe, expect, it } from 'vitest';
import { hasRouters } from './model-routers.ts';

describe('hasRouters', () => {
  it.each([
    ['qwen3_moe', 'Qwen3MoeForCausalLM', true],
    ['qwen2_moe', 'Qwen2MoeForCausalLM', true],
    ['qwen3_next', 'Qwen3NextForCausalLM', true],
    ['mixtral', 'MixtralForCausalLM', true],
    ['qwen3', 'Qwen3ForCausalLM', false],
    ['llama', 'LlamaForCausalLM', false],
  ])('%s is routed: %s', (modelType, architecture, routed) => {
    expect(hasRouters({ modelType, architectures: [architecture] })).toBe(routed);
    expect(hasRouters({ modelType: null, architectures: [architecture] })).toBe(routed);
  });

  it('is false without a model', () => {
    expect(hasRouters(null)).toBe(false);
    expect(hasRouters({ modelType: null, architectures: [] })).toBe(false);
  });
});
