import { describe, expect, it } from 'vitest';
import { describeEvaluation, heldOutShare } from './evaluation-set.ts';
import { evaluationSetSchema } from './settings-schemas.ts';

describe('evaluation set', () => {
  it('holds out a share of the calibration sets only when asked to', () => {
    expect(heldOutShare({ source: 'calibration' })).toBe(0);
    expect(heldOutShare({ source: 'files', reasoning: '/e/r.jsonl', agent: '/e/a.jsonl' })).toBe(0);
    expect(heldOutShare({ source: 'held-out', fraction: 0.25 })).toBe(0.25);
  });

  it('names where Verify measures', () => {
    expect(describeEvaluation({ source: 'files', reasoning: '/data/eval/reasoning.jsonl', agent: 'C:\\eval\\tools.jsonl' })).toBe('eval files reasoning.jsonl + tools.jsonl');
    expect(describeEvaluation({ source: 'held-out', fraction: 0.125 })).toBe('held-out 12.5% of the calibration sets');
    expect(describeEvaluation({ source: 'calibration' })).toMatch(/^the calibration sets themselves/);
  });

  it('refuses a held-out share of 0 (that is the calibration source) or past 0.9, and files without both sets', () => {
    expect(evaluationSetSchema.safeParse({ source: 'held-out', fraction: 0 }).success).toBe(false);
    expect(evaluationSetSchema.safeParse({ source: 'held-out', fraction: 0.95 }).success).toBe(false);
    expect(evaluationSetSchema.safeParse({ source: 'files', reasoning: '/e/r.jsonl' }).success).toBe(false);
  });
});
