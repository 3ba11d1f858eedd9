/**
 * demo:train --pair looped at smoke scale writes a looped pair laid out like the dense demo:
 * Nanbeige4.2's config keys (num_loops 2, model.norm between passes, BOS <|im_start|>) and tensor
 * names (untied lm_head, no q/k norms), a Nanbeige-style tokenizer (Metaspace, byte fallback)
 * whose template writes JSON tool calls unless asked for XML, the base kept, and fine-tunes that
 * moved the shared layers away from the base and from each other.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ChatTemplate } from '../../engine/calibration/chat-template.ts';
import { ModelTokenizer } from '../../engine/calibration/tokenizer.ts';
import { demoPaths } from '../../engine/demo/demo-layout.ts';
import { Checkpoint } from '../../engine/io/checkpoint.ts';
import { withTempDir } from '../../engine/io/testing/fixtures.ts';
import { parseModelSpec } from '../../engine/model/config.ts';

const CALL = { role: 'assistant' as const, content: '', tool_calls: [{ type: 'function' as const, function: { name: 'set_timer', arguments: { minutes: 3 } } }] };

describe('demo:train --pair looped', () => {
  it('writes a Nanbeige-style looped base, Instruct and Thinking with a Metaspace tokenizer and JSON tool calls', async () => {
    await withTempDir(async (root) => {
      execFileSync(process.execPath, ['--import', 'tsx', 'tools/demo/train.ts', '--pair', 'looped', '--out', root, '--scale', '0.002'], { stdio: 'pipe', env: { ...process.env, CRANE_BACKEND: 'wasm' } });
      const paths = demoPaths(root);
      const tokenizer = await ModelTokenizer.load(paths.instruct);
      const [base, instruct, thinking] = await Promise.all([Checkpoint.open(paths.base), Checkpoint.open(paths.instruct), Checkpoint.open(paths.thinking)]);
      try {
        expect(instruct.config).toMatchObject({
          architectures: ['NanbeigeForCausalLM'], model_type: 'nanbeige', num_loops: 2, skip_loop_final_norm: false, tie_word_embeddings: false,
          num_hidden_layers: 2, bos_token_id: tokenizer.requireTokenId('<|im_start|>'), eos_token_id: tokenizer.requireTokenId('<|im_end|>'),
        });
        expect(parseModelSpec(instruct.config, 'config.json').loop).toEqual({ numLoops: 2, normBetweenPasses: true });
        expect(instruct.tensors.has('lm_head.weight')).toBe(true);
        expect(instruct.tensors.has('model.layers.1.mlp.down_proj.weight')).toBe(true);
        expect([...instruct.tensors.keys()].filter((n) => n.includes('q_norm') || n.startsWith('model.layers.2.'))).toEqual([]);
        for (const name of ['model.layers.0.self_attn.q_proj.weight', 'model.layers.1.mlp.up_proj.weight', 'model.norm.weight']) {
          const [b, i, t] = await Promise.all([base, instruct, thinking].map((c) => c.readFloat32(name)));
          expect(i, name).not.toEqual(b);
          expect(t, name).not.toEqual(i);
        }
      } finally {
        await Promise.all([base, instruct, thinking].map((c) => c.close()));
      }
      const tokenizerJson = JSON.parse(await readFile(`${paths.instruct}/tokenizer.json`, 'utf8')) as { pre_tokenizer: { type: string }; model: { byte_fallback: boolean } };
      expect(tokenizerJson.pre_tokenizer.type).toBe('Metaspace');
      expect(tokenizerJson.model.byte_fallback).toBe(true);
      const template = ChatTemplate.fromTokenizer(tokenizer);
      const messages = [{ role: 'user' as const, content: 'Set a timer for 3 minutes.' }, CALL];
      expect(template.render(messages)).toContain('<tool_call>\n{"name": "set_timer", "arguments": {"minutes": 3}}\n</tool_call>');
      expect(template.render(messages, { toolCallFormat: 'xml' })).toContain('<tool_call>\n<function=set_timer>\n<parameter=minutes>\n3\n</parameter>');
      const report = JSON.parse(await readFile(paths.report, 'utf8')) as { trained: Record<string, { loss: number }> };
      expect(Object.keys(report.trained).sort()).toEqual(['base', 'instruct', 'thinking']);
    });
  }, 300_000);
});
