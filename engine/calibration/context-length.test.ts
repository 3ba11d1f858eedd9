import { describe, expect, it } from 'vitest';
import { contextLimitOf, isLongSequencePolicy, keptLength, replyBudget } from './context-length.ts';

describe('contextLimitOf', () => {
  it('reads max_position_embeddings, has no limit without one, and refuses one that is not a positive integer', () => {
    const warn = (): void => undefined;
    expect(contextLimitOf({ max_position_embeddings: 40960 }, 'q/config.json', 'cut', warn)).toMatchObject({ maxPositions: 40960, source: 'max_position_embeddings 40960 in q/config.json' });
    for (const absent of [undefined, null]) expect(contextLimitOf({ max_position_embeddings: absent }, 'c', 'cut', warn)).toBeUndefined();
    for (const bad of [0, -5, 1.5, '4096']) {
      expect(() => contextLimitOf({ max_position_embeddings: bad }, 'q/config.json', 'cut', warn)).toThrow(`q/config.json: "max_position_embeddings" must be a positive integer (got ${JSON.stringify(bad)})`);
    }
  });

  it('knows the three policies and nothing else', () => {
    expect(['cut', 'warn', 'refuse', 'drop'].filter(isLongSequencePolicy)).toEqual(['cut', 'warn', 'refuse']);
  });
});

describe('keptLength', () => {
  it('cuts 1.5 M tokens to the context, keeps them under warn, refuses them under refuse', () => {
    const warnings: string[] = [];
    const limit = (policy: 'cut' | 'warn' | 'refuse') => contextLimitOf({ max_position_embeddings: 2048 }, 'config.json', policy, (w) => warnings.push(w));
    expect(keptLength(1_500_000, limit('cut'), 'big.jsonl:3')).toBe(2048);
    expect(keptLength(2246, limit('warn'), 'data.jsonl:1')).toBe(2246);
    expect(keptLength(2048, limit('refuse'), 'data.jsonl:2')).toBe(2048);
    expect(() => keptLength(2049, limit('refuse'), 'data.jsonl:9')).toThrow("data.jsonl:9: has 2049 tokens, more than the model's context (max_position_embeddings 2048 in config.json)");
    expect(keptLength(10 ** 9, undefined, 'x')).toBe(10 ** 9);
    expect(warnings).toEqual([
      "big.jsonl:3: has 1500000 tokens, more than the model's context (max_position_embeddings 2048 in config.json): cut to its first 2048 tokens",
      "data.jsonl:1: has 2246 tokens, more than the model's context (max_position_embeddings 2048 in config.json): kept whole, positions past the context are untrained",
    ]);
  });
});

describe('replyBudget', () => {
  it('stops generation at the context under cut and refuse, not under warn', () => {
    const limit = (policy: 'cut' | 'warn' | 'refuse') => contextLimitOf({ max_position_embeddings: 1024 }, 'config.json', policy, () => undefined);
    expect(replyBudget(1000, 160, limit('cut'))).toBe(24);
    expect(replyBudget(1000, 16, limit('refuse'))).toBe(16);
    expect(replyBudget(5000, 160, limit('cut'))).toBe(0);
    expect(replyBudget(1000, 160, limit('warn'))).toBe(160);
    expect(replyBudget(1000, 160, undefined)).toBe(160);
  });
});
