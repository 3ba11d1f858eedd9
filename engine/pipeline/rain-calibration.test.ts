/**
 * RAIN's calibration files through a Nanbeige4.2-style tokenizer (Metaspace, byte fallback, not
 * byte-level): the think bounds and instruction spans land on the tokens that spell them, a ▁ the
 * pre-tokenizer prepends is not counted, and a tokenizer without exact token bytes is refused.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalibrationError } from '../calibration/calibration-error.ts';
import { ChatTemplate } from '../calibration/chat-template.ts';
import { loadNanbeigeStyleFixture } from '../calibration/testing/nanbeige-fixture.ts';
import { ModelTokenizer } from '../calibration/tokenizer.ts';
import { readRainInstructionPrompts, readRainReasoningPrompts } from './rain-calibration.ts';
import { RAIN_INSTRUCTIONS } from './testing/rain-triple.ts';

const { tokenizer, template } = await loadNanbeigeStyleFixture();
let root: string;
let reasoningFile: string;
let instructionFile: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'crane-rain-calibration-'));
  reasoningFile = join(root, 'reasoning_calibration_set.json');
  instructionFile = join(root, 'instruction_calibration_set.jsonl');
  await writeFile(reasoningFile, JSON.stringify([
    { prompt: 'What is 12 + 30? Answer in one word, é 漢.', reasoning: 'Add the tens: 42.', response: 'Forty-two.' },
    'Hello',
  ]));
  await writeFile(instructionFile, RAIN_INSTRUCTIONS.map((r) => JSON.stringify(r)).join('\n'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The text the tokens first…last spell (byte-fallback pieces joined before decoding). */
const spelled = (ids: readonly number[], first: number, last: number) =>
  Buffer.concat(ids.slice(first, last + 1).map((id) => tokenizer.tokenBytes(id))).toString('utf8');

describe('RAIN calibration with a Metaspace tokenizer', () => {
  it('puts the think bounds on the <think> and </think> tokens', async () => {
    expect(tokenizer.byteLevel).toBe(false);
    const { prompts, skipped } = await readRainReasoningPrompts(reasoningFile, tokenizer, template, 10);
    expect(skipped).toBe(0);
    expect(prompts).toHaveLength(2);
    for (const p of prompts) {
      expect(p.ids[p.thinkStart]).toBe(tokenizer.requireTokenId('<think>'));
      expect(p.ids[p.thinkEnd]).toBe(tokenizer.requireTokenId('</think>'));
    }
  });

  it('maps every instruction span to the tokens that spell it', async () => {
    const [first] = await readRainInstructionPrompts(instructionFile, tokenizer, template, 1000);
    const ids = first?.ids ?? [];
    const [style, question] = first?.spans.instructions ?? [];
    // 'Rome style' (prompt span of the first instruction) and 'what is the weather' (second).
    expect(spelled(ids, style?.instruction[0] ?? -1, style?.instruction.at(-1) ?? -1)).toContain('Rome style');
    expect(spelled(ids, question?.instruction[0] ?? -1, question?.instruction.at(-1) ?? -1)).toContain('what is the weather');
    expect(style?.relatedCount).toBe(2);
  });

  it('does not count a ▁ the pre-tokenizer prepends to a text that starts with plain text', async () => {
    const plain = new ChatTemplate('Q: {{ messages[0].content }}\nA: <think>\n', 'plain.jinja');
    const ids = tokenizer.encode(plain.render([{ role: 'user', content: 'Hello' }], { addGenerationPrompt: true }), { addSpecialTokens: false });
    expect(tokenizer.tokenBytes(ids[0] ?? -1)[0]).toBe(0x20); // the prepended ▁ the text lacks
    const { prompts } = await readRainReasoningPrompts(reasoningFile, tokenizer, plain, 10);
    const [p] = prompts;
    expect(p?.ids[p.thinkStart]).toBe(tokenizer.requireTokenId('<think>'));
    expect(p?.ids[p.thinkEnd]).toBe(tokenizer.requireTokenId('</think>'));
  });

  it('refuses a tokenizer whose tokens have no exact bytes, naming its file', async () => {
    const withoutDecoder = ModelTokenizer.fromContents({ tokenizerJson: { ...tokenizer.source.tokenizerJson, decoder: null }, tokenizerConfig: tokenizer.config });
    expect(withoutDecoder.exactTokenBytes).toBe(false);
    const read = readRainReasoningPrompts(reasoningFile, withoutDecoder, template, 10);
    await expect(read).rejects.toThrow(CalibrationError);
    await expect(read).rejects.toThrow(/tokenizer\.json.*does not reproduce .*reasoning_calibration_set\.json\[0\].*byte-level or Metaspace/s);
  });
});
