/**
 * The demo's Verify evaluation files on disk are eval.jsonl's D_R and D_A prompts, as the
 * training script writes them, and none of their prompts is a calibration prompt.
 */
import { describe, expect, it } from 'vitest';
import { readChatJsonl } from '../calibration/chat-dataset.ts';
import { demoPaths } from './demo-layout.ts';
import { readEvalSet, verifyChats } from './eval-set.ts';

const paths = demoPaths();
const prompts = async (file: string) => (await readChatJsonl(file)).map(({ messages, tools }) => ({ messages, tools }));

describe("the demo's evaluation files for Verify", () => {
  it('hold the arithmetic and lookup prompts as D_R and the tool requests (with tools) as D_A', async () => {
    const tasks = await readEvalSet(paths.eval);
    const expected = verifyChats(tasks);
    expect(await prompts(paths.evalReasoning)).toEqual(expected.reasoning.map(({ messages }) => ({ messages, tools: undefined })));
    expect(await prompts(paths.evalToolUse)).toEqual(expected.toolUse.map(({ messages, tools }) => ({ messages, tools })));
    expect(expected.reasoning).toHaveLength(tasks.filter((t) => t.family === 'arithmetic' || t.family === 'lookup').length);
    expect(expected.toolUse.every((chat) => (chat.tools?.length ?? 0) > 0)).toBe(true);
  });

  it('share no prompt with the calibration sets', async () => {
    const text = (chats: { messages: readonly { content?: unknown }[] }[]) => new Set(chats.map((c) => JSON.stringify(c.messages.map((m) => m.content))));
    const calibration = text([...await readChatJsonl(paths.reasoning), ...await readChatJsonl(paths.toolUse)]);
    const evaluation = text([...await readChatJsonl(paths.evalReasoning), ...await readChatJsonl(paths.evalToolUse)]);
    expect([...evaluation].filter((p) => calibration.has(p))).toEqual([]);
  });
});
